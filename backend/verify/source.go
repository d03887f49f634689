package verify

import (
	"regexp"
	"strings"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Recognising model-made text by its content, so a saved chat, an exported
// answer or a copy of the prompt is never sent back to the model as
// evidence, whatever the file is called.

// Detection is what a text looks like.
type Detection struct {
	// Source is corpus.SourceCorpus for an ordinary document,
	// corpus.SourceModel for text a model wrote (or Footnote's prompt), and
	// corpus.SourceUser for the user's side of a chat.
	Source string `json:"source"`
	// Reason says why, for the Library ("looks like a chat transcript:
	// assistant: and user: turns"); empty for documents.
	Reason string `json:"reason,omitempty"`
	// Cues are the signatures found, including ones too weak to decide.
	Cues []string `json:"cues,omitempty"`
}

// Detector recognises model-made text. Its zero value knows every signature
// except the prompt's wording; NewDetector adds that.
type Detector struct {
	phrases []string // normalised sentences of the prompts
}

// minPhraseWords: shorter prompt sentences ("Be concise.") occur in
// ordinary writing.
const minPhraseWords = 6

// NewDetector returns a detector that also recognises text quoting any of
// the given prompts (Footnote's system prompt): each of their sentences of
// six words or more is a signature.
func NewDetector(prompts ...string) *Detector {
	d := &Detector{}
	for _, p := range prompts {
		for _, u := range units(p) {
			s := normalisePhrase(p[u.start:u.end])
			if len(strings.Fields(s)) >= minPhraseWords {
				d.phrases = append(d.phrases, s)
			}
		}
	}
	return d
}

var (
	// exportRe matches Footnote's Markdown export: its sign-off, or a
	// footnote definition quoting a passage ([^1]: "…" — title, § section).
	exportRe = regexp.MustCompile(`(?m)^\*Answered by Footnote\b|^\[\^\d+\]: ".*" — .*§`)
	// roleRe is a chat turn: "assistant:", "**User:**", or "(assistant)"
	// as a transcript writes the speaker before a turn.
	roleRe      = regexp.MustCompile(`(?im)^[\s>#*_\[<|-]*(?:(assistant|user|system|human|ai|bot)[\s*_\]|>]*:|\((assistant|user|system|human|ai|bot)\))`)
	citationsRe = regexp.MustCompile(`(?im)^\s*"?citations"?\s*:\s*\[`)
	answerKeyRe = regexp.MustCompile(`"(?:refusal_reason|snippet_id|grounded|template_version)"\s*:`)
	// templateRe is a RAG answer template's citation list, "citations:
	// [p1#1]", anywhere in a line; in prose, outside code.
	templateRe = regexp.MustCompile(`(?i)\bcitations\s*:\s*\[[^\]\n]*\]`)
	// summaryRe is a stored assistant summary's key.
	summaryRe = regexp.MustCompile(`(?im)^[\s>*_-]*"?assistant_summary"?\s*:`)
	// notesRe is an internal notes key, "notes:" opening a line; ordinary
	// writing has it too ("Notes: …"), so alone it decides nothing.
	notesRe = regexp.MustCompile(`(?m)^[\s>*_-]*"?notes"?\s*:`)
	// reservedIDRe is an id in a namespace reserved for chat, drafts and
	// model output, cited in brackets ("[chat:42]", "citations: [p1#1,
	// gen:7]") or given as a record's id ("id": "chat:42").
	reservedIDRe = regexp.MustCompile(`(?i)(?:\[[^\]\n]*?|\bid"?\s*[:=]\s*"?)\b(` + reservedNamespaces + `):[\w#.\-]+`)
)

// reservedNamespaces are the id prefixes of text that is never evidence:
// corpus.ReservedPrefixes, and the notes and assistant summaries answers
// cite when model text has re-entered an index.
var reservedNamespaces = func() string {
	names := []string{"notes", "assistant_summary"}
	for _, p := range corpus.ReservedPrefixes {
		names = append(names, strings.TrimSuffix(p, ":"))
	}
	return strings.Join(names, "|")
}()

// Detect classifies text (a whole document or one chunk).
func (d *Detector) Detect(text string) Detection {
	var cues []string
	cue := func(c string) { cues = append(cues, c) }

	export := exportRe.MatchString(text)
	if export {
		cue("Footnote export block")
	}
	prompt := false
	if len(d.phrases) > 0 {
		norm := normalisePhrase(text)
		for _, p := range d.phrases {
			if strings.Contains(norm, p) {
				prompt = true
				cue("Footnote prompt text")
				break
			}
		}
	}
	prose := withoutCode(text) // a document showing a format in code is not that format
	roles := map[string]int{}
	for _, m := range roleRe.FindAllStringSubmatch(text, -1) {
		r := strings.ToLower(m[1] + m[2])
		if r == "human" {
			r = "user"
		}
		if r == "ai" || r == "bot" {
			r = "assistant"
		}
		roles[r]++
	}
	for _, r := range []string{"assistant", "user", "system"} {
		if roles[r] > 0 {
			cue(r + ": turns")
		}
	}
	citations := citationsRe.MatchString(text) || answerKeyRe.MatchString(text)
	if citations {
		cue("citation block")
	}
	template := templateRe.FindString(prose)
	if template != "" {
		cue("citations: [...] template line")
	}
	summary := summaryRe.MatchString(prose)
	if summary {
		cue("assistant_summary: key")
	}
	if notesRe.MatchString(prose) {
		cue("notes: key")
	}
	reservedID := ""
	if m := reservedIDRe.FindStringSubmatch(prose); m != nil {
		reservedID = m[0][strings.LastIndex(strings.ToLower(m[0]), strings.ToLower(m[1])+":"):]
		cue("reserved id " + reservedID)
	}
	markers := len(markerRe.FindAllStringIndex(text, -1))
	cited, sentences := citedSentences(text)
	if markers > 0 {
		cue("[#n] markers")
	}

	model := func(reason string) Detection {
		return Detection{Source: corpus.SourceModel, Reason: reason, Cues: cues}
	}
	switch {
	case export:
		return model("looks like an answer exported from Footnote")
	case prompt:
		return model("quotes Footnote's own prompt")
	case roles["assistant"] > 0 && roles["user"]+roles["system"] > 0:
		return model("looks like a chat transcript (assistant: and user: turns)")
	case roles["assistant"] > 0 && (markers > 0 || citations || template != ""):
		return model("looks like a chat answer: an assistant turn with citations")
	case summary:
		return model("holds an assistant summary (assistant_summary:)")
	case reservedID != "":
		return model("cites " + reservedID + ", an id reserved for chat, drafts and model output")
	case template != "":
		return model("holds a RAG answer template's citation list (" + template + ")")
	case citations && markers > 0:
		return model("looks like a stored answer (citation block and [#n] markers)")
	case cited >= 2 && float64(cited) >= answerMarkerShare*float64(sentences):
		return model("looks like an answer: most sentences end with [#n] citation markers")
	case roles["user"] >= 2 && roles["assistant"] == 0 && float64(roles["user"]) >= userTurnShare*float64(nonEmptyLines(text)):
		return Detection{Source: corpus.SourceUser, Reason: "looks like the user's side of a chat (user: turns)", Cues: cues}
	}
	return Detection{Source: corpus.SourceCorpus, Cues: cues}
}

// answerMarkerShare: documents about citations quote a marker now and then;
// an answer ends most of its sentences with one.
const answerMarkerShare = 0.3

// userTurnShare: "user:" must start this share of a text's lines for it to
// be a chat rather than, say, a config file with a user: key.
const userTurnShare = 0.3

// citedSentences counts the sentences of text that end with a citation
// marker, and all sentences.
func citedSentences(text string) (cited, all int) {
	for _, u := range units(text) {
		if u.kind == KindHeading || u.kind == KindCode {
			continue
		}
		all++
		s := strings.TrimRight(text[u.start:u.end], " .!?;:")
		if loc := markerRe.FindAllStringIndex(s, -1); len(loc) > 0 && loc[len(loc)-1][1] == len(s) {
			cited++
		}
	}
	return cited, all
}

func nonEmptyLines(text string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

var phraseSpaceRe = regexp.MustCompile(`[\s]+`)

// normalisePhrase lowercases s and collapses whitespace, dropping a list
// number, so a prompt rule matches however it was pasted.
func normalisePhrase(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = listItemRe.ReplaceAllString(s, "")
	return phraseSpaceRe.ReplaceAllString(s, " ")
}

// withoutCode returns text with its fenced code blocks and inline code
// spans blanked (line breaks kept), so signatures are looked for in prose.
func withoutCode(text string) string {
	b := []byte(text)
	blank := func(start, end int) {
		for i := start; i < end; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	for _, bl := range blocks(text) {
		if bl.kind == KindCode {
			blank(bl.start, bl.end)
		}
	}
	for _, r := range codeRanges(string(b)) {
		blank(r[0], r[1])
	}
	return string(b)
}
