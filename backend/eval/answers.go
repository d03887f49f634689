package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

// QA is one gold question for answer evaluation. GoldIDs may name
// snippets ("snip_…"), documents ("doc_…") or sections (any other id, e.g.
// "install/installing-footnote/linux"); a citation hits when it names one of
// them at that level. Unanswerable questions have no gold ids.
type QA struct {
	QID        string   `json:"qid"`
	Q          string   `json:"q"`
	Answerable bool     `json:"answerable"`
	GoldIDs    []string `json:"gold_ids,omitempty"`
	GoldClaim  string   `json:"gold_claim,omitempty"`
	// Paraphrases are asked instead of Q on later runs (--runs N), so the
	// spread shows how much wording matters.
	Paraphrases []string `json:"paraphrases,omitempty"`
	// History makes the item a follow-up: the earlier questions of its
	// thread, oldest first (never answers), asked before it (followups.go).
	History []string `json:"history,omitempty"`
}

// Phrasing returns the question to ask on run (1-based): Q first, then the
// paraphrases in turn.
func (q QA) Phrasing(run int) string {
	if run <= 1 || len(q.Paraphrases) == 0 {
		return q.Q
	}
	return q.Paraphrases[(run-2)%len(q.Paraphrases)]
}

// gold converts the ids into the retrieval Gold form, by level.
func (q QA) gold() Gold {
	g := Gold{Question: q.Q}
	for _, id := range q.GoldIDs {
		switch idLevel(id) {
		case "snippet":
			g.SnippetIDs = append(g.SnippetIDs, id)
		case "doc":
			g.DocIDs = append(g.DocIDs, id)
		default:
			g.SectionIDs = append(g.SectionIDs, id)
		}
	}
	return g
}

// idLevel names the level a gold id is at, from the prefixes corpus ids carry.
func idLevel(id string) string {
	switch {
	case strings.HasPrefix(id, "snip_"):
		return "snippet"
	case strings.HasPrefix(id, "doc_"):
		return "doc"
	default:
		return "section"
	}
}

// LoadQASet reads a gold QA set: a JSON array of QA objects or JSON Lines.
func LoadQASet(path string) ([]QA, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read gold QA set: %w", err)
	}
	qs, err := ParseQASet(data)
	if err != nil {
		return nil, fmt.Errorf("gold QA set %s: %w", path, err)
	}
	return qs, nil
}

// ParseQASet parses the LoadQASet formats and checks every entry: a qid and
// a question, unique qids, and gold ids exactly when answerable.
func ParseQASet(data []byte) ([]QA, error) {
	var qs []QA
	if err := parseJSONList(data, &qs, func(line []byte) error {
		var q QA
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		qs = append(qs, q)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(qs) == 0 {
		return nil, errors.New("the gold QA set has no questions; add one {qid, q, answerable, gold_ids} object per question")
	}
	seen := map[string]bool{}
	for i, q := range qs {
		switch {
		case strings.TrimSpace(q.QID) == "":
			return nil, fmt.Errorf("question %d has no qid; give every question a unique qid", i+1)
		case seen[q.QID]:
			return nil, fmt.Errorf("qid %q appears twice; qids must be unique", q.QID)
		case strings.TrimSpace(q.Q) == "":
			return nil, fmt.Errorf("question %s has no text in \"q\"", q.QID)
		case q.Answerable && len(q.GoldIDs) == 0:
			return nil, fmt.Errorf("question %s is answerable but lists no gold_ids; name the snippet, section or document that answers it", q.QID)
		case !q.Answerable && len(q.GoldIDs) > 0:
			return nil, fmt.Errorf("question %s is unanswerable but lists gold_ids; remove them or mark it answerable", q.QID)
		}
		seen[q.QID] = true
	}
	return qs, nil
}

// parseJSONList decodes a JSON array into into, or calls line for each
// non-blank line of JSON Lines.
func parseJSONList(data []byte, into any, line func([]byte) error) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return errors.New("the file is empty")
	}
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, into); err != nil {
			return fmt.Errorf("not a JSON array of objects: %w", err)
		}
		return nil
	}
	for n, l := range bytes.Split(trimmed, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) == 0 {
			continue
		}
		if err := line(l); err != nil {
			return fmt.Errorf("line %d is not a JSON object: %w", n+1, err)
		}
	}
	return nil
}

// TraceCitation is one citation of a traced answer. N is its [#n] marker
// when known (0 otherwise).
type TraceCitation struct {
	N         int    `json:"n,omitempty"`
	SnippetID string `json:"snippet_id"`
	SectionID string `json:"section_id"`
	DocID     string `json:"doc_id"`
	Source    string `json:"source,omitempty"`
}

// text is the answer as written (raw when the trace was read from a file).
func (t Trace) text() string {
	if t.raw != "" {
		return t.raw
	}
	return t.Answer
}

// Trace is one answered question as `footnote trace export` writes it (one
// JSON object per line) or as a live run produces it. Chunks are the
// retrieved passages, best first; unknown fields are ignored.
type Trace struct {
	QID           string          `json:"qid,omitempty"`
	Run           int             `json:"run,omitempty"`
	Question      string          `json:"question"`
	Answer        string          `json:"answer"`
	Grounded      bool            `json:"grounded"`
	RefusalReason *string         `json:"refusal_reason"`
	Citations     []TraceCitation `json:"citations"`
	Chunks        []Item          `json:"chunks"`
	// Claims are the answer's verified claims, when it was verified; the
	// citation recall and precision come from them (citations.go).
	Claims []verify.ClaimResult `json:"claims,omitempty"`
	// PipelineRefused is set when the trace says the pipeline refused the
	// answer without naming a reason (a conventional "ok": false).
	PipelineRefused bool `json:"-"`
	// raw is the answer as the trace wrote it, a "citations: […]" line
	// included: conventional containment reads the whole text.
	raw string

	evidence []verify.Passage // a live answer's packed passages, to verify it when it carries no claims
}

// LoadTraces reads a trace file (JSON Lines, or a JSON array).
func LoadTraces(path string) ([]Trace, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read traces: %w", err)
	}
	var ts []Trace
	if err := parseJSONList(data, &ts, func(line []byte) error {
		var t Trace
		if err := json.Unmarshal(line, &t); err != nil {
			return err
		}
		ts = append(ts, t)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("traces %s: %w", path, err)
	}
	return ts, nil
}

// FromAnswer turns a pipeline answer into a trace; ranked are the retrieved
// passages used for the retrieval metrics.
func FromAnswer(qid string, run int, a rag.Answer, ranked []Item) Trace {
	t := Trace{QID: qid, Run: run, Question: a.Question, Answer: a.Answer, Grounded: a.Grounded,
		RefusalReason: a.RefusalReason, Chunks: ranked, Citations: []TraceCitation{}, Claims: a.Claims, raw: a.Answer}
	if len(a.Claims) == 0 {
		t.evidence = rag.Passages(a.Evidence)
	}
	for _, c := range a.Citations {
		t.Citations = append(t.Citations, TraceCitation{N: c.N, SnippetID: c.SnippetID, SectionID: c.SectionID, DocID: c.DocID, Source: c.Source})
	}
	return t
}

// Labels of a judged question.
const (
	LabelOK          = "OK"           // answerable, answered, cites a gold id
	LabelRefusalOK   = "REFUSAL_OK"   // unanswerable and refused
	LabelOverRefusal = "OVER_REFUSAL" // answerable but refused
	LabelHallucinate = "HALLUCINATION"
	LabelAnsNoHit    = "ANS_NO_HIT" // answerable, answered, cites no gold id
)

// Row is one question's judgement.
type Row struct {
	QID        string `json:"qid"`
	Run        int    `json:"run"`
	Question   string `json:"question"`
	Answerable bool   `json:"answerable"`
	Answered   bool   `json:"answered"`
	Hit        bool   `json:"hit"`
	Compliant  bool   `json:"compliant"`
	// Contains is conventional claim containment (ContainsGoldRun) of an
	// answer that is not a refusal, for answerable questions; nil for
	// unanswerable ones.
	Contains *bool `json:"contains_claim"`
	// WordContains is the looser word containment (ContainsClaimWord) of
	// an answer that is not a refusal; nil for unanswerable questions.
	WordContains *bool `json:"contains_word"`
	// PhraseContains is Footnote's stricter containment (ContainsClaim: a
	// run of whole words, in an answer that is not a refusal); nil without
	// a gold claim.
	PhraseContains *bool    `json:"contains_phrase"`
	Citations      int      `json:"citations"`
	NonCorpus      int      `json:"non_corpus_citations"`
	Cited          []string `json:"cited"` // ids cited, at the level of the gold ids
	Label          string   `json:"label"`
	RefusalReason  string   `json:"refusal_reason,omitempty"`
	Answer         string   `json:"answer"`
	Retrieval      *Scores  `json:"retrieval,omitempty"` // nil for unanswerable questions
	// CitationRecall and CitationPrecision are this answer's ALCE figures
	// (citations.go); nil (n/a) for a refusal, an answer with no cited
	// claim, or a trace with neither claims nor passage text.
	CitationRecall    *float64        `json:"citation_recall"`
	CitationPrecision *float64        `json:"citation_precision"`
	ClaimCounts       *CitationCounts `json:"claim_counts,omitempty"`
	FollowUp          bool            `json:"follow_up,omitempty"` // the item has a history
	// Lambda is the question's λ state across runs (convergence.go):
	// convergent or divergent; absent with a single run.
	Lambda string `json:"lambda,omitempty"`
}

// IsRefusal reports whether a trace is a refusal, by the definition the
// pipeline uses (rag.IsRefusal): the pipeline refused it, for any reason,
// or its text is the refusal sentence or the refusal token.
func IsRefusal(t Trace) bool {
	return t.PipelineRefused || rag.IsRefusal(t.Answer, t.RefusalReason)
}

// countCitations returns how many citations an answer makes and how many of
// them are not corpus text: a citation whose source is not corpus (model
// output, a chat, notes), whose id is in a namespace reserved for such text
// (chat:, draft:, …), that names no snippet, or a [#n] marker in the text
// that resolves to no passage given to the model.
func countCitations(t Trace) (total, nonCorpus int) {
	byN := map[int]bool{}
	numbered := false
	for _, c := range t.Citations {
		total++
		if nonCorpusCitation(c) {
			nonCorpus++
		}
		if c.N > 0 {
			byN[c.N], numbered = true, true
		}
	}
	markers := rag.ExtractMarkers(t.Answer)
	unresolved := 0
	if numbered {
		for _, n := range markers {
			if !byN[n] {
				unresolved++
			}
		}
	} else {
		unresolved = max(0, len(markers)-len(t.Citations))
	}
	return total + unresolved, nonCorpus + unresolved
}

// nonCorpusCitation reports a citation that is not of corpus text. A
// citation without a source (a conventional trace) is judged by its ids.
func nonCorpusCitation(c TraceCitation) bool {
	if src := strings.TrimSpace(c.Source); src != "" && src != corpus.SourceCorpus {
		return true
	}
	if strings.TrimSpace(c.SnippetID) == "" {
		return true
	}
	for _, id := range []string{c.SnippetID, c.SectionID, c.DocID} {
		if corpus.HasReservedPrefix(id) {
			return true
		}
	}
	return false
}

// citedIDs lists the ids the citations name, at the levels the gold ids
// use (a citation known by one id alone shows that id), and whether any id
// a citation names — snippet, section or document — is a gold id.
func citedIDs(q QA, t Trace) (ids []string, hit bool) {
	gold := map[string]bool{}
	levels := map[string]bool{}
	for _, id := range q.GoldIDs {
		gold[id] = true
		levels[idLevel(id)] = true
	}
	if len(levels) == 0 {
		levels["section"] = true // unanswerable: show sections, the readable level
	}
	seen := map[string]bool{}
	show := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, c := range t.Citations {
		byLevel := map[string]string{"snippet": c.SnippetID, "section": c.SectionID, "doc": c.DocID}
		shown := false
		for _, level := range []string{"snippet", "section", "doc"} {
			id := byLevel[level]
			hit = hit || (id != "" && gold[id])
			if levels[level] && id != "" {
				show(id)
				shown = true
			}
		}
		if !shown && c.SectionID == "" && c.DocID == "" {
			show(c.SnippetID)
		}
	}
	return ids, hit
}

// ContainsClaim reports whether answer contains a phrase of claim at least
// five characters long: a run of whole consecutive words, compared case-
// and punctuation-insensitively. An empty claim is never contained.
func ContainsClaim(answer, claim string) bool {
	words := normWords(claim)
	hay := " " + strings.Join(normWords(answer), " ") + " "
	for i := range words {
		phrase := ""
		for j := i; j < len(words); j++ {
			if phrase != "" {
				phrase += " "
			}
			phrase += words[j]
			if len([]rune(phrase)) < 5 {
				continue
			}
			if strings.Contains(hay, " "+phrase+" ") {
				return true
			}
			break // longer runs from i contain this one, so cannot match either
		}
	}
	return false
}

// normWords lowercases s and splits it into words, keeping letters, digits
// and the symbols that matter inside technical terms (+ - . _ / :) but
// trimming punctuation at word ends.
func normWords(s string) []string {
	var out []string
	for _, f := range strings.Fields(strings.ToLower(s)) {
		f = strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' })
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// Judge labels one question's trace; k is the recall cut-off.
func Judge(q QA, t Trace, k int) Row {
	r := Row{QID: q.QID, Run: max(t.Run, 1), Question: t.Question, Answerable: q.Answerable, Answer: t.Answer}
	if r.Question == "" {
		r.Question = q.Q
	}
	if t.RefusalReason != nil {
		r.RefusalReason = *t.RefusalReason
	}
	refused := IsRefusal(t)
	r.Answered = !refused
	r.Citations, r.NonCorpus = countCitations(t)
	r.Cited, r.Hit = citedIDs(q, t)
	r.Hit = r.Hit && r.Answered && q.Answerable
	r.Compliant = len(t.Citations) > 0 || rag.IsRefusalText(t.Answer)
	if q.Answerable {
		run, word := r.Answered && ContainsGoldRun(t.text(), q.GoldClaim), r.Answered && ContainsClaimWord(t.Answer, q.GoldClaim)
		r.Contains, r.WordContains = &run, &word
	}
	if q.GoldClaim != "" {
		c := r.Answered && ContainsClaim(t.Answer, q.GoldClaim)
		r.PhraseContains = &c
	}
	if q.Answerable {
		s := Score(q.gold(), t.Chunks, k)
		r.Retrieval = &s
	}
	if r.Answered {
		if c, ok := traceCitationCounts(t); ok {
			r.ClaimCounts, r.CitationRecall, r.CitationPrecision = &c, c.Recall(), c.Precision()
		}
	}
	switch {
	case q.Answerable && refused:
		r.Label = LabelOverRefusal
	case q.Answerable && r.Hit:
		r.Label = LabelOK
	case q.Answerable:
		r.Label = LabelAnsNoHit
	case refused:
		r.Label = LabelRefusalOK
	default:
		r.Label = LabelHallucinate
	}
	return r
}

// Metrics are the answer and retrieval metrics over a set of rows. Rates
// with an empty denominator are 0.
type Metrics struct {
	Questions    int `json:"questions"`
	Answerable   int `json:"answerable"`
	Unanswerable int `json:"unanswerable"`
	Answered     int `json:"answered"`
	K            int `json:"k"`
	// Precision: answered questions that are answerable and cite a gold id.
	Precision float64 `json:"precision"`
	// OverRefusal: answerable questions refused.
	OverRefusal float64 `json:"over_refusal"`
	// UnderRefusal: unanswerable questions answered (hallucination rate).
	UnderRefusal float64 `json:"under_refusal"`
	// CitationHitRate: answerable questions answered with a gold citation.
	CitationHitRate float64 `json:"citation_hit_rate"`
	// Compliance: answers with citations, or refusals in the exact sentence.
	Compliance float64 `json:"compliance"`
	// Containment: answerable questions answered with a text that contains
	// a phrase of the gold claim, as the conventional scorer finds them
	// (ContainsGoldRun).
	Containment float64 `json:"containment"`
	// WordContainment: the same with any ≥5-character word of the claim
	// (ContainsClaimWord).
	WordContainment float64 `json:"word_containment"`
	// PhraseContainment: Footnote's stricter variant, over the questions
	// with a gold claim: the answer is not a refusal and contains a run of
	// the claim's whole words ≥5 characters long (ContainsClaim).
	PhraseContainment float64 `json:"phrase_containment"`
	// NonCorpusCitationRate: over the citations of answered questions,
	// those that are not corpus text by their source or id, or resolve to
	// no passage the model was given (countCitations). A refusal shows no
	// evidence, so its citations do not count.
	NonCorpusCitationRate float64 `json:"non_corpus_citation_rate"`
	// CitationRecall and CitationPrecision are ALCE's citation metrics
	// averaged over CitationAnswers answers that have them (citations.go);
	// nil (n/a) when none has.
	CitationRecall    *float64       `json:"citation_recall"`
	CitationPrecision *float64       `json:"citation_precision"`
	CitationAnswers   int            `json:"citation_answers"`
	RecallAtK         float64        `json:"recall_at_k"`
	MRRAt10           float64        `json:"mrr_at_10"`
	NDCGAt10          float64        `json:"ndcg_at_10"`
	Labels            map[string]int `json:"labels"`
}

// Compute aggregates rows into metrics.
func Compute(rows []Row, k int) Metrics {
	m := Metrics{Questions: len(rows), K: k, Labels: map[string]int{}}
	var correct, refusedAnswerable, answeredUnanswerable, hits, compliant, claims, contained, wordContained, cites, nonCorpus int
	var phraseClaims, phraseContained int
	var retrieved int
	for _, r := range rows {
		m.Labels[r.Label]++
		if r.Answerable {
			m.Answerable++
		} else {
			m.Unanswerable++
		}
		if r.Answered {
			m.Answered++
		}
		switch {
		case r.Answerable && !r.Answered:
			refusedAnswerable++
		case !r.Answerable && r.Answered:
			answeredUnanswerable++
		}
		if r.Hit {
			hits++
			correct++
		}
		if r.Compliant {
			compliant++
		}
		if r.Contains != nil {
			claims++
			if *r.Contains {
				contained++
			}
		}
		if r.WordContains != nil && *r.WordContains {
			wordContained++
		}
		if r.PhraseContains != nil {
			phraseClaims++
			if *r.PhraseContains {
				phraseContained++
			}
		}
		if r.Answered {
			cites += r.Citations
			nonCorpus += r.NonCorpus
		}
		if r.Retrieval != nil {
			retrieved++
			m.RecallAtK += r.Retrieval.Recall
			m.MRRAt10 += r.Retrieval.MRR
			m.NDCGAt10 += r.Retrieval.NDCG
		}
	}
	m.Precision = ratio(correct, m.Answered)
	m.OverRefusal = ratio(refusedAnswerable, m.Answerable)
	m.UnderRefusal = ratio(answeredUnanswerable, m.Unanswerable)
	m.CitationHitRate = ratio(hits, m.Answerable)
	m.Compliance = ratio(compliant, m.Questions)
	m.Containment = ratio(contained, claims)
	m.WordContainment = ratio(wordContained, claims)
	m.PhraseContainment = ratio(phraseContained, phraseClaims)
	m.NonCorpusCitationRate = ratio(nonCorpus, cites)
	m.CitationRecall, m.CitationPrecision, m.CitationAnswers = citationAverages(rows)
	if retrieved > 0 {
		m.RecallAtK /= float64(retrieved)
		m.MRRAt10 /= float64(retrieved)
		m.NDCGAt10 /= float64(retrieved)
	}
	return m
}

func ratio(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return float64(n) / float64(d)
}

// Value returns a metric by its JSON name.
func (m Metrics) Value(name string) (float64, bool) {
	v, ok := map[string]float64{
		"precision": m.Precision, "over_refusal": m.OverRefusal, "under_refusal": m.UnderRefusal,
		"citation_hit_rate": m.CitationHitRate, "compliance": m.Compliance, "containment": m.Containment,
		"word_containment":         m.WordContainment,
		"phrase_containment":       m.PhraseContainment,
		"non_corpus_citation_rate": m.NonCorpusCitationRate, "recall_at_k": m.RecallAtK,
		"mrr_at_10": m.MRRAt10, "ndcg_at_10": m.NDCGAt10,
	}[name]
	return v, ok
}

// MetricNames lists the metrics in report order.
var MetricNames = []string{"precision", "over_refusal", "under_refusal", "citation_hit_rate", "compliance",
	"containment", "word_containment", "phrase_containment", "non_corpus_citation_rate", "recall_at_k", "mrr_at_10", "ndcg_at_10"}

// Match pairs each gold question with its traces, by qid when the trace has
// one and by question text otherwise; the n-th trace of a question is run n
// unless it says its run. Traces of other questions are ignored and gold
// questions without a trace are not scored, as the conventional scorer
// does: untraced lists their qids. No trace for any question is an error.
func Match(qs []QA, traces []Trace) (matched map[string][]Trace, untraced []string, err error) {
	byQID := map[string]int{}
	byText := map[string]int{}
	for i, q := range qs {
		byQID[q.QID] = i
		byText[normQuestion(q.Q)] = i
		for _, p := range q.Paraphrases {
			byText[normQuestion(p)] = i
		}
	}
	out := map[string][]Trace{}
	for _, t := range traces {
		i, ok := byQID[t.QID]
		if t.QID == "" || !ok {
			i, ok = byText[normQuestion(t.Question)]
		}
		if !ok {
			continue // traces of other questions are not part of this gold set
		}
		qid := qs[i].QID
		if t.Run == 0 {
			t.Run = len(out[qid]) + 1
		}
		out[qid] = append(out[qid], t)
	}
	for _, q := range qs {
		if len(out[q.QID]) == 0 {
			untraced = append(untraced, q.QID)
		}
	}
	if len(untraced) == len(qs) {
		return nil, untraced, fmt.Errorf("no trace answers any question of the gold set (first: %s, %q); export traces of the gold questions, or ask them live", qs[0].QID, qs[0].Q)
	}
	return out, untraced, nil
}

func normQuestion(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
