package ollamafake

import (
	"strings"

	"github.com/footnote-app/footnote/backend/llm"
)

// rewriteTask is the first line of Footnote's follow-up rewrite prompt. The
// fake recognises the task from the prompt alone, as a real model does; it
// never looks at which question a test asks.
const rewriteTask = "You rewrite a follow-up question into one standalone question."

// withRewrites answers rewrite prompts with RewriteReply and passes every
// other request to next.
func withRewrites(next Responder) Responder {
	return func(req llm.ChatRequest) Reply {
		if !isRewritePrompt(req) {
			return next(req)
		}
		return Reply{Tokens: Words(RewriteReply(userPrompt(req)))}
	}
}

func isRewritePrompt(req llm.ChatRequest) bool {
	for _, m := range req.Messages {
		if m.Role == "system" && strings.HasPrefix(m.Content, rewriteTask) {
			return true
		}
	}
	return false
}

// RewriteReply rewrites the prompt's "Follow-up:" line the way a small
// instruction model does: a leading "And"/"So" is dropped and the first
// pronoun ("it", "its", "they", "them", "that") is replaced by the topic of
// the last earlier question — the noun phrase after its first "the", or
// the whole question when it has none. The reply keeps the strict format.
func RewriteReply(prompt string) string {
	var earlier []string
	followUp := ""
	for _, line := range strings.Split(prompt, "\n") {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "Follow-up:"); ok {
			followUp = strings.TrimSpace(f)
			continue
		}
		if n, rest, ok := strings.Cut(line, ". "); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			earlier = append(earlier, rest)
		}
	}
	if len(earlier) == 0 || followUp == "" {
		return "Standalone question: " + followUp
	}
	topic := topicOf(earlier[len(earlier)-1])
	fields := strings.Fields(followUp)
	if len(fields) > 1 {
		switch strings.ToLower(fields[0]) {
		case "and", "so", "also":
			fields = fields[1:]
			fields[0] = strings.ToUpper(fields[0][:1]) + fields[0][1:]
		}
	}
	replaced := false
	for i, f := range fields {
		word := strings.ToLower(strings.TrimRight(f, "?.,!"))
		tail := f[len(strings.TrimRight(f, "?.,!")):]
		switch word {
		case "it", "they", "them", "that", "this":
			fields[i], replaced = topic+tail, true
		case "its", "their":
			fields[i], replaced = topic+"'s"+tail, true
		}
		if replaced {
			break
		}
	}
	out := strings.Join(fields, " ")
	if !replaced {
		out = strings.TrimRight(out, "?") + " about " + topic + "?"
	}
	return "Standalone question: " + out
}

// topicOf is the noun phrase after a question's first "the": up to the
// first word that ends it (a verb-like word ending in "ed", an auxiliary,
// punctuation), at most four words.
func topicOf(question string) string {
	fields := strings.Fields(strings.TrimRight(question, "?"))
	for i, f := range fields {
		if !strings.EqualFold(f, "the") {
			continue
		}
		phrase := []string{"the"}
		for _, w := range fields[i+1:] {
			lw := strings.ToLower(w)
			if len(phrase) == 5 || strings.HasSuffix(lw, "ed") || phraseEnd[lw] || strings.ContainsAny(w, ",.;:") {
				break
			}
			phrase = append(phrase, w)
		}
		if len(phrase) > 1 {
			return strings.Join(phrase, " ")
		}
	}
	return strings.TrimRight(question, "?")
}

var phraseEnd = map[string]bool{"is": true, "are": true, "was": true, "were": true, "do": true, "does": true,
	"did": true, "can": true, "has": true, "have": true, "had": true, "will": true, "should": true, "be": true}
