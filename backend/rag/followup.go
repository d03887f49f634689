package rag

import (
	"context"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/llm"
)

// Turn is an earlier question of a thread. It deliberately holds no answer
// text: earlier answers may shape neither the evidence nor the prompt, so
// model-made text cannot be cited or verified in a later answer.
type Turn struct {
	Question   string `json:"question"`   // as the user asked it
	Standalone string `json:"standalone"` // what was searched for
}

// Followup records how a follow-up question was turned into the standalone
// question that was searched for, and which earlier turns the prompt used.
type Followup struct {
	Asked      string `json:"asked"`      // the follow-up as typed
	Standalone string `json:"standalone"` // shown as "Searched for: …"
	// RewriteSource is "model", "fallback" (the model was unavailable or
	// its rewrite unusable) or "user" (edited and asked again).
	RewriteSource string `json:"rewrite_source"`
	RewriteNote   string `json:"rewrite_note,omitempty"` // why the fallback was used
	// TurnsUsed are the 1-based positions, in the thread, of the earlier
	// questions the answer prompt included; older ones were dropped first
	// to fit the context budget.
	TurnsUsed     []int `json:"turns_used"`
	TurnsDropped  int   `json:"turns_dropped"`
	HistoryTokens int   `json:"history_tokens"`
}

// Rewrite sources.
const (
	RewriteModel    = "model"
	RewriteFallback = "fallback"
	RewriteUser     = "user"
)

// RewriteTemplateVersion names the rewrite prompt below.
const RewriteTemplateVersion = "rewrite-v1"

// RewriteMarker is the first line of the rewrite prompt's rules; a model
// (or the test server, which sees only the prompt) recognises the task by it.
const RewriteMarker = "You rewrite a follow-up question into one standalone question."

// StandalonePrefix starts the one line a rewrite must consist of.
const StandalonePrefix = "Standalone question:"

const rewritePrompt = RewriteMarker + `
Rules:
1. Use the earlier questions only to resolve what the follow-up refers to (pronouns such as "it", "they", "that"; omitted subjects).
2. Do not answer the question. Do not add facts, names or details that are not in the questions.
3. Reply with exactly one line: ` + StandalonePrefix + ` <the question>`

// maxStandaloneRunes bounds a usable rewrite; a longer reply is the model
// answering or rambling, not a question.
const maxStandaloneRunes = 300

// rewriteMessages renders the rewrite prompt: the earlier questions in
// their standalone form, oldest first, then the follow-up.
func rewriteMessages(history []Turn, followUp string) []llm.Message {
	var b strings.Builder
	b.WriteString("Earlier questions:\n")
	for i, t := range history {
		q := t.Standalone // already resolved, so references do not chain
		if q == "" {
			q = t.Question
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + oneLine(q) + "\n")
	}
	b.WriteString("\nFollow-up: " + oneLine(followUp))
	return []llm.Message{{Role: "system", Content: rewritePrompt}, {Role: "user", Content: b.String()}}
}

// ParseRewrite extracts the standalone question from a model's reply; ok is
// false when the reply does not keep the strict format (one line with the
// prefix, a non-empty question of bounded length, no citation markers).
func ParseRewrite(reply string) (string, bool) {
	lines := strings.FieldsFunc(strings.TrimSpace(reply), func(r rune) bool { return r == '\n' || r == '\r' })
	if len(lines) != 1 {
		return "", false
	}
	line := strings.TrimSpace(lines[0])
	if !strings.HasPrefix(strings.ToLower(line), strings.ToLower(StandalonePrefix)) {
		return "", false
	}
	q := strings.TrimSpace(line[len(StandalonePrefix):])
	q = strings.Trim(q, `"'`)
	if q == "" || len([]rune(q)) > maxStandaloneRunes || strings.Contains(q, "[#") {
		return "", false
	}
	return q, true
}

// FallbackStandalone is the deterministic rewrite used without a model: the
// follow-up followed by the key terms of the previous standalone question
// that it does not already contain. A term the follow-up puts something
// else in place of is not kept ("And on Windows?" after "How do I install
// Footnote on Linux?" drops "Linux"); when that contrast is all the
// follow-up says, the previous question is asked with the term replaced.
func FallbackStandalone(history []Turn, followUp string) string {
	followUp = oneLine(followUp)
	if len(history) == 0 {
		return followUp
	}
	prev := history[len(history)-1]
	base := oneLine(prev.Standalone)
	if base == "" {
		base = oneLine(prev.Question)
	}
	was, now, elliptical := contrast(base, followUp)
	if elliptical {
		if i := strings.Index(strings.ToLower(base), strings.ToLower(was)); i >= 0 {
			return base[:i] + now + base[i+len(was):]
		}
	}
	have := map[string]bool{}
	for _, w := range words(followUp) {
		have[strings.ToLower(w)] = true
	}
	for _, w := range words(was) {
		have[strings.ToLower(w)] = true // replaced, so not a key term any more
	}
	var terms []string
	for _, w := range words(base) {
		lw := strings.ToLower(w)
		if stopWords[lw] || have[lw] || len([]rune(w)) < 2 {
			continue
		}
		have[lw] = true
		terms = append(terms, w)
	}
	if len(terms) == 0 {
		return followUp
	}
	return followUp + " (" + strings.Join(terms, " ") + ")"
}

// contrast finds what a follow-up puts in place of a phrase of the previous
// question: the words after a preposition both use ("on Linux", "on
// Windows"). It returns the previous phrase and the new one ("" when the
// follow-up contrasts nothing), and whether the follow-up says nothing else
// ("And on Windows?", "What about on Windows?").
func contrast(base, followUp string) (was, now string, elliptical bool) {
	fu, bw := words(followUp), words(base)
	for i, w := range fu {
		if !prepositions[strings.ToLower(w)] {
			continue
		}
		phrase := phraseAfter(fu, i)
		if len(phrase) == 0 {
			continue
		}
		for k, b := range bw {
			if !strings.EqualFold(b, w) {
				continue
			}
			old := phraseAfter(bw, k)
			if len(old) == 0 || strings.EqualFold(strings.Join(old, " "), strings.Join(phrase, " ")) {
				continue
			}
			elliptical = true
			for j, x := range fu {
				if (j < i || j > i+len(phrase)) && !stopWords[strings.ToLower(x)] {
					elliptical = false // the follow-up asks something more
				}
			}
			return strings.Join(old, " "), strings.Join(phrase, " "), elliptical
		}
	}
	return "", "", false
}

// phraseAfter is the run of content words after ws[i], up to the next
// stop word or preposition.
func phraseAfter(ws []string, i int) []string {
	j := i + 1
	for j < len(ws) && !stopWords[strings.ToLower(ws[j])] && !prepositions[strings.ToLower(ws[j])] {
		j++
	}
	return ws[i+1 : j]
}

// prepositions introduce the phrase a follow-up may swap ("on Windows",
// "for teachers", "in 2019").
var prepositions = map[string]bool{
	"on": true, "in": true, "for": true, "with": true, "without": true, "under": true, "from": true, "at": true,
	"to": true, "by": true, "into": true, "over": true, "via": true, "within": true, "during": true, "before": true, "after": true,
}

// Standalone turns a follow-up into the question to search for: the model's
// rewrite when it keeps the format, else FallbackStandalone. It never sees
// earlier answers. The rewrite call is short and not streamed to the user.
func (p *Pipeline) Standalone(ctx context.Context, history []Turn, followUp string) Followup {
	f := Followup{Asked: strings.TrimSpace(followUp), TurnsUsed: []int{}}
	fallback := func(note string) Followup {
		f.Standalone, f.RewriteSource, f.RewriteNote = FallbackStandalone(history, f.Asked), RewriteFallback, note
		return f
	}
	if len(history) == 0 {
		f.Standalone, f.RewriteSource = f.Asked, RewriteFallback
		return f
	}
	if p.LLM == nil {
		return fallback("no model server is configured")
	}
	stream := false
	window := p.window(ctx).Tokens // the answer's window: a different one would reload the model
	req := &llm.ChatRequest{Model: p.Model, Messages: p.fitRewrite(history, f.Asked, window), Stream: &stream,
		Options: RequestOptions(window, p.Seed, rewriteTokens)}
	var b strings.Builder
	err := p.LLM.Chat(ctx, req, func(r llm.ChatResponse) error {
		b.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		return fallback("the model could not rewrite the question: " + p.describe(err))
	}
	q, ok := ParseRewrite(b.String())
	if !ok {
		return fallback("the model's rewrite was not one standalone question")
	}
	f.Standalone, f.RewriteSource = q, RewriteModel
	return f
}

// rewriteTokens bounds the rewrite's reply: one line, at most
// maxStandaloneRunes long.
const rewriteTokens = 96

// fitRewrite renders the rewrite prompt within window (0: unknown) with
// room for the reply, dropping the oldest earlier questions first; the
// previous one is always kept.
func (p *Pipeline) fitRewrite(history []Turn, followUp string, window int) []llm.Message {
	count := p.counter()
	for {
		msgs := rewriteMessages(history, followUp)
		used := rewriteTokens
		for _, m := range msgs {
			used += count(m.Content) + templateTokens
		}
		if window <= 0 || used <= window || len(history) == 1 {
			return msgs
		}
		history = history[1:]
	}
}

// historyShare is the part of the evidence budget earlier questions may
// take; the oldest are dropped first beyond it.
const historyShare = 4

// fitHistory picks the most recent earlier questions whose tokens fit in
// budget, returning them oldest first with their 1-based positions.
func fitHistory(history []Turn, budget int, count func(string) int) (kept []string, positions []int, tokens int) {
	for i := len(history) - 1; i >= 0; i-- {
		t := count(historyLine(history[i].Question))
		if tokens+t > budget {
			break
		}
		tokens += t
		kept = append([]string{history[i].Question}, kept...)
		positions = append([]int{i + 1}, positions...)
	}
	return kept, positions, tokens
}

func historyLine(q string) string { return "- " + oneLine(q) + "\n" }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' })
}

// stopWords are dropped from the fallback's key terms: question words,
// auxiliaries, pronouns and articles carry no topic.
var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for by with from about into as
	is are was were be been being do does did done have has had can could would should will shall may might must
	what when where who whom whose which why how whether
	i me my we our you your he him his she her it its they them their this that these those there here
	not no yes so than then also just only very more most some any all each
	tell explain describe please`) {
		stopWords[w] = true
	}
}

// resolveFollowup decides the standalone question of req: the one given,
// else a rewrite when the question has earlier turns; nil for a first
// question.
func (p *Pipeline) resolveFollowup(ctx context.Context, req Request) *Followup {
	if req.Followup != nil {
		f := *req.Followup
		f.Asked = strings.TrimSpace(req.Question)
		f.Standalone = oneLine(f.Standalone)
		if f.Standalone == "" {
			f.Standalone, f.RewriteSource = FallbackStandalone(req.History, f.Asked), RewriteFallback
		}
		f.TurnsUsed = []int{}
		return &f
	}
	if len(req.History) == 0 {
		return nil
	}
	f := p.Standalone(ctx, req.History, req.Question)
	return &f
}

// SearchQuestion is what retrieval searches for: the standalone question of
// a follow-up, else the question itself.
func (a *Answer) SearchQuestion() string {
	if a.Followup != nil && a.Followup.Standalone != "" {
		return a.Followup.Standalone
	}
	return a.Question
}

// planHistory counts the earlier questions the prompt will carry against
// the context budget: they take at most a quarter of the evidence budget,
// the oldest dropped first, and the evidence budget shrinks by what they use.
func (p *Pipeline) planHistory(ans *Answer, history []Turn) {
	if ans.Followup == nil || len(history) == 0 {
		return
	}
	count := p.counter()
	budget := ans.Retrieval.Budget / historyShare
	_, positions, tokens := fitHistory(history, budget, count)
	f := ans.Followup
	f.TurnsUsed, f.TurnsDropped, f.HistoryTokens = positions, len(history)-len(positions), tokens
	ans.Generation.PromptTokens += tokens
	ans.Retrieval.Budget = max(0, ans.Retrieval.Budget-tokens)
}

// messages renders the answer prompt. A follow-up's prompt lists the
// earlier questions the budget kept (questions only, never answers) before
// the evidence, and asks the standalone question.
func (a *Answer) messages(history []Turn) []llm.Message {
	msgs := BuildMessages(a.SearchQuestion(), a.Evidence)
	if a.Followup == nil || len(a.Followup.TurnsUsed) == 0 {
		return msgs
	}
	var b strings.Builder
	b.WriteString("Earlier questions in this conversation (context only, not evidence):\n")
	for _, pos := range a.Followup.TurnsUsed {
		b.WriteString(historyLine(history[pos-1].Question))
	}
	b.WriteString("\n")
	msgs[1].Content = b.String() + msgs[1].Content
	return msgs
}
