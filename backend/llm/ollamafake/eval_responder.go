package ollamafake

import (
	"fmt"
	"strings"

	"github.com/footnote-app/footnote/backend/llm"
)

// PlayKind is how a scripted reply behaves, like a real model on a good or
// bad day; each kind produces one of the evaluation's outcomes.
type PlayKind string

// Scripted reply kinds.
const (
	// PlayCite quotes the evidence block from the play's section and cites
	// it; when retrieval did not bring that section, it cites block [#1],
	// as a model answering from whatever it was given would.
	PlayCite PlayKind = "cite"
	// PlayCiteOther quotes and cites a block from another section (a wrong citation).
	PlayCiteOther PlayKind = "cite_other"
	// PlayNoCitation quotes the section's block without any marker (a missing citation).
	PlayNoCitation PlayKind = "no_citation"
	// PlayInvalid cites the section's block and also a passage number it was not given.
	PlayInvalid PlayKind = "invalid_citation"
	// PlayRefuse replies with the exact refusal sentence.
	PlayRefuse PlayKind = "refuse"
	// PlayHallucinate answers a question the evidence cannot answer, citing [#1].
	PlayHallucinate PlayKind = "hallucinate"
)

// Play is the scripted behaviour for one question.
type Play struct {
	Kind    PlayKind
	Section string // section id whose block the reply draws on
	Claim   string // for PlayHallucinate: what the model makes up
}

// ScriptedResponder answers the questions in script (keyed by question
// text, case and spacing ignored) from the evidence in the prompt as each
// play says; other questions go to fallback (DefaultResponder when nil).
func ScriptedResponder(script map[string]Play, fallback Responder) Responder {
	if fallback == nil {
		fallback = DefaultResponder
	}
	plays := make(map[string]Play, len(script))
	for q, p := range script {
		plays[normQuestion(q)] = p
	}
	return func(req llm.ChatRequest) Reply {
		prompt := lastUserMessage(req)
		play, ok := plays[normQuestion(questionOf(prompt))]
		if !ok {
			return fallback(req)
		}
		return Reply{Tokens: Words(play.answer(prompt))}
	}
}

func (p Play) answer(prompt string) string {
	headers := blockHeaders(prompt)
	bodies := evidenceBlocks(prompt)
	if len(headers) == 0 {
		return DontKnow
	}
	// find returns the first block (1-based) whose section matches, or 0.
	find := func(match bool) int {
		for i, h := range headers {
			if strings.HasSuffix(h, " › "+p.Section) == match {
				return i + 1
			}
		}
		return 0
	}
	quote := func(n int) string { return firstSentence(bodies[fmt.Sprint(n)]) }
	n := max(find(true), 1)
	switch p.Kind {
	case PlayRefuse:
		return DontKnow
	case PlayHallucinate:
		return p.Claim + " [#1]"
	case PlayNoCitation:
		return quote(n)
	case PlayInvalid:
		return fmt.Sprintf("%s [#%d] [#%d]", quote(n), n, len(headers)+3)
	case PlayCiteOther:
		if other := find(false); other > 0 {
			n = other
		}
	}
	return fmt.Sprintf("%s [#%d]", quote(n), n)
}

func lastUserMessage(req llm.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// questionOf returns the text after the prompt's "Question:" line start.
func questionOf(prompt string) string {
	i := strings.LastIndex(prompt, "\nQuestion:")
	if i < 0 {
		if !strings.HasPrefix(prompt, "Question:") {
			return ""
		}
	} else {
		prompt = prompt[i+1:]
	}
	return strings.TrimSpace(strings.TrimPrefix(prompt, "Question:"))
}

// blockHeaders lists the "[#n] header" lines in order ("Title › section").
func blockHeaders(prompt string) []string {
	var out []string
	for _, line := range strings.Split(prompt, "\n") {
		if m := blockStart.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			out = append(out, strings.TrimSpace(m[2]))
		}
	}
	return out
}

func normQuestion(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// SampleLibraryScript scripts the replies to the sample library's gold set
// (sample/gold.json): mostly faithful answers, plus one wrong citation, one
// missing citation, one made-up passage number, one needless refusal and one
// hallucination, so every evaluation label and metric is exercised.
func SampleLibraryScript() map[string]Play {
	cite := func(section string) Play { return Play{Kind: PlayCite, Section: section} }
	refuse := Play{Kind: PlayRefuse}
	return map[string]Play{
		"How do I install Footnote on Linux?":                             cite("install/installing-footnote/linux"),
		"What are the steps to install Footnote on a Linux machine?":      cite("install/installing-footnote/linux"),
		"Which WebKitGTK runtime package does Footnote need on Linux?":    cite("install/installing-footnote/linux"),
		"How do I install Footnote on macOS?":                             {Kind: PlayCiteOther, Section: "install/installing-footnote/macos"},
		"What does the Windows installer add on Windows 10?":              cite("install/installing-footnote/windows"),
		"At which address does Footnote look for Ollama by default?":      cite("install/installing-footnote/installing-ollama"),
		"Which embedding model does Footnote use?":                        cite("getting-started/getting-started-with-footnote/what-you-need"),
		"Which keyboard shortcut focuses the question box?":               cite("getting-started/getting-started-with-footnote/keyboard-shortcuts"),
		"How does Footnote merge keyword search and semantic search?":     {Kind: PlayNoCitation, Section: "citations/how-citations-work/retrieval"},
		"When does an answer count as grounded?":                          cite("citations/how-citations-work/grounded-answers"),
		"What is the name of the SQLite file that holds the index?":       cite("troubleshooting/troubleshooting/where-my-data-lives"),
		"What should I do when Footnote says Ollama is not reachable?":    cite("troubleshooting/troubleshooting/ollama-is-not-reachable"),
		"Does Footnote send my documents or questions anywhere?":          cite("privacy"),
		"Which file types can Footnote read?":                             {Kind: PlayInvalid, Section: "library-and-collections/library-and-collections/supported-file-types"},
		"How do I create a collection from the command line?":             cite("library-and-collections/library-and-collections/collections"),
		"What happens when the best passage scores below the score gate?": cite("asking-questions/asking-questions/when-footnote-says-it-does-not-know"),
		"How do I stop an answer while it is being written?":              cite("asking-questions/asking-questions/stopping-an-answer"),
		"Why does the same question give the same answer twice?":          cite("asking-questions/asking-questions/repeatable-answers"),
		"How long are the passages Footnote splits documents into?":       cite("settings/settings/chunk-size"),
		"How do I use LM Studio instead of Ollama?":                       refuse,
		"How do I step through the citations in the source viewer?":       cite("quick-reference"),
		"Can I use Footnote without Ollama?":                              cite("faq/can-i-use-footnote-without-ollama"),
		"Which quality gates make an evaluation fail?":                    cite("evaluation/evaluating-answers/quality-gates"),
		"What happens to the index when I delete a document?":             cite("library-and-collections/library-and-collections/rescanning"),
		"What does footnote doctor check?":                                cite("command-line/the-command-line/checking-the-setup"),
		"How much does a Footnote licence cost?":                          refuse,
		"Can Footnote transcribe audio recordings?":                       refuse,
		"Does Footnote run on Android phones?":                            {Kind: PlayHallucinate, Claim: "Yes, Footnote runs on Android phones."},
		"Which graphics card does Footnote require?":                      refuse,
		"How do I share my index with my team over the network?":          refuse,
		"What is the largest number of documents Footnote can index?":     refuse,
		"Can Footnote translate my documents into French?":                refuse,
		"How do I log in to my Footnote account?":                         refuse,
		"Who founded the company that makes Footnote?":                    refuse,
		"Which keyboard shortcut prints an answer?":                       refuse,
		"How do I change the colour theme of the app?":                    refuse,
		"Which release of Footnote first supported EPUB books?":           refuse,
	}
}
