// Package verify owns checking an answer's claims against the passages they
// cite, and recognising model-made text that must never become evidence.
//
// Claims splits a Markdown answer into sentence-level claims and decides
// which citation markers cover each one (markers copied out of evidence
// text never count: EchoedMarkers). A Verifier checks every (claim, cited
// passage) pair fact by fact (atoms.go): the words of each clause and each
// value the claim states (numbers, dates, codes, names, negations, read and
// compared by backend/facts) are looked for in the whole passage, its
// title and headings included, where the clause is stated — a value found
// elsewhere counts unless the sentences stating the clause bind another
// value to the same words. It reports the passage sentence(s) that best
// support the claim, with offsets into the document's stored text, and
// scores the support from recorded signals: the facts' scores weighted by
// term statistics, contradictions, semantic similarity from the embedding
// model, and an optional entailment model. Combine is the one function that
// turns signals into a score and a verdict, and Result.Holds the one rule for
// which verdicts keep an answer grounded under strict verification. Detector recognises chat
// transcripts, exported answers and prompt text by their content, so ingest
// can keep them out of evidence.
//
// The package depends on corpus, embed, and the bottom-layer text packages
// facts and lexical; the answer pipeline, the store and the UI use it.
package verify

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
)

// Passage is a cited chunk as the answer pipeline packed it.
type Passage struct {
	N       int    // its citation number in the answer
	Text    string // the chunk's text as stored
	Start   int    // the chunk's start in its document's stored text, in code points (corpus.Offsets.Start)
	Context string // optional: the document title and section heading, where a passage names its subject
}

// Span is the supporting text found inside a passage.
type Span struct {
	// Offsets index the document's stored text in code points, like chunk
	// offsets: []rune(docText)[Start:End] == Text.
	Offsets   corpus.Offsets `json:"offsets"`
	Text      string         `json:"text"`
	Sentences int            `json:"sentences"`
	// PassageStart and PassageEnd are the same span as byte offsets into
	// Passage.Text.
	PassageStart int `json:"passage_start"`
	PassageEnd   int `json:"passage_end"`
}

// Signals are every value the verdict was computed from.
type Signals struct {
	// Lexical is the claim's score from the passage's text: the mean of its
	// facts' scores (Facts), each weighted by the rarity of its words (a
	// number, date, code or name counts like one rare word).
	Lexical float64 `json:"lexical"`
	// Semantic is the claim–span similarity above the claim's similarity to
	// unrelated text, in [0,1]; Cosine and Baseline are its raw parts. Nil
	// without an embedder.
	Semantic *float64 `json:"semantic,omitempty"`
	Cosine   *float64 `json:"cosine,omitempty"`
	Baseline *float64 `json:"baseline,omitempty"`
	// Entailment is the entailment model's score for (span, claim); nil when off.
	Entailment *float64 `json:"entailment,omitempty"`
	// Contradiction is the entailment model's probability that the span
	// contradicts the claim; nil when off or the model has no such label.
	Contradiction *float64 `json:"contradiction,omitempty"`
	// Facts are the claim's atomic facts and how the passage states each.
	Facts   []Fact   `json:"facts,omitempty"`
	Checks  []Check  `json:"checks,omitempty"`  // values, negations and bindings, and their outcome
	Missing []string `json:"missing,omitempty"` // claim words the passage lacks
}

// Fact is one atomic fact of a claim (see atoms.go) and its score.
type Fact struct {
	// Kind is "words" (the ordinary words of one clause) or the kind of
	// value: number, date, code, entity or negation.
	Kind string `json:"kind"`
	Text string `json:"text"` // as the claim writes it
	// Score in [0,1]: for words, the share of them the passage holds where
	// their clause is stated (a word found only elsewhere counting half);
	// for a value, 1 stated, 0 missing or contradicted, between for part
	// of a name or date.
	Score  float64 `json:"score"`
	Weight float64 `json:"weight"` // its share of the claim's score, relative to the other facts'
}

// Result is the verdict of one claim against one passage.
type Result struct {
	N       int     `json:"n"`
	Span    Span    `json:"span"`
	Score   float64 `json:"score"`
	Verdict string  `json:"verdict"`
	Reason  string  `json:"reason,omitempty"`
	Signals Signals `json:"signals"`
}

// Verifier checks claims against passages. The zero value checks with
// lexical signals only; it is safe for concurrent use.
type Verifier struct {
	Stats    TermStats      // document frequencies; nil weighs every content word the same
	Embedder embed.Embedder // nil: no semantic signal
	Entailer Entailer       // nil: no entailment signal

	// SemanticOnlyIfUndecided computes the semantic signal only for pairs
	// whose verdict it could change: neither supported nor contradicted, and
	// holding enough of the claim for semantics to count (see Combine).
	// Other pairs record no semantic
	// value. With a full-size embedding model this saves most of the cost
	// (each embedded sentence costs about as much as a query).
	SemanticOnlyIfUndecided bool

	mu        sync.Mutex
	refModel  string
	refVecs   [][]float32
	baselines map[string]float64
}

// Verify checks one claim (plain text, see Claim.Plain) against one passage.
func (v *Verifier) Verify(ctx context.Context, claim string, p Passage) (Result, error) {
	rs, err := v.VerifyAnswer(ctx, []Claim{{Plain: claim, Markers: []int{p.N}}}, []Passage{p})
	if err != nil {
		return Result{}, err
	}
	return rs[0].Results[0], nil
}

// ClaimResult is the outcome for one segment of an answer.
type ClaimResult struct {
	Claim Claim `json:"claim"`
	// Results has one entry per covering marker, in marker order.
	Results []Result `json:"results"`
	// Verdict is the best of Results, Uncited for a claim without markers,
	// or "" for a segment that is not a claim.
	Verdict string  `json:"verdict"`
	Score   float64 `json:"score"`
	Reason  string  `json:"reason,omitempty"`
}

// VerifyAnswer checks every checkable claim against each passage its
// markers cite. A marker naming no passage in passages is unsupported.
//
// Facts are checked against every cited passage whole; the semantic signal
// is computed only for the best few windows of each (claim, passage) pair,
// whose sentences are embedded together with the claims in one batch:
// semantics can lift a claim but never rescue a contradiction.
func (v *Verifier) VerifyAnswer(ctx context.Context, claims []Claim, passages []Passage) ([]ClaimResult, error) {
	byN := map[int]*prepared{}
	for _, p := range passages {
		byN[p.N] = prepare(p, v.commonName)
	}
	out := make([]ClaimResult, len(claims))
	var pairs []*pair
	for i, c := range claims {
		out[i].Claim = c
		switch {
		case !c.Checkable():
			continue
		case len(c.Markers) == 0:
			out[i].Verdict, out[i].Reason = Uncited, "no citation covers this claim"
			continue
		}
		cl := v.prepareClaim(c.Plain)
		for _, n := range c.Markers {
			p := byN[n]
			if p == nil {
				out[i].Results = append(out[i].Results, Result{N: n, Verdict: Unsupported,
					Reason: fmt.Sprintf("passage %d was not given to the model", n)})
				continue
			}
			sig, span := p.evaluate(cl)
			pairs = append(pairs, &pair{claim: i, result: len(out[i].Results), c: cl, p: p, sig: sig, span: span})
			out[i].Results = append(out[i].Results, Result{})
		}
	}
	if err := v.addSemantics(ctx, pairs); err != nil {
		return nil, err
	}
	for _, pr := range pairs {
		out[pr.claim].Results[pr.result] = pr.p.result(pr.sig, pr.span)
	}
	for i := range out {
		if len(out[i].Results) == 0 {
			continue
		}
		if err := v.entail(ctx, out[i].Claim.Plain, out[i].Results); err != nil {
			return nil, err
		}
		out[i].Verdict, out[i].Score, out[i].Reason = Unsupported, 0, ""
		for j, r := range out[i].Results {
			if j == 0 || rank(r.Verdict) > rank(out[i].Verdict) || rank(r.Verdict) == rank(out[i].Verdict) && r.Score > out[i].Score {
				out[i].Verdict, out[i].Score, out[i].Reason = r.Verdict, r.Score, r.Reason
				if len(out[i].Results) > 1 && r.Reason != "" {
					out[i].Reason = fmt.Sprintf("[#%d]: %s", r.N, r.Reason)
				}
			}
		}
	}
	return out, nil
}

// pair is one (claim, cited passage) under verification.
type pair struct {
	claim, result int // indexes into VerifyAnswer's output
	c             preparedClaim
	p             *prepared
	sig           Signals // without semantics until addSemantics
	span          window  // the reported supporting span
}

// semanticWindows is how many of a pair's best windows get the semantic
// signal (the highest counts): the reported span and the runner-up.
const semanticWindows = 2

// addSemantics embeds the claims and the sentences of each pair's best
// windows in one batch and adds the semantic signal: how much closer the
// claim is to the closest of those windows than to unrelated text.
func (v *Verifier) addSemantics(ctx context.Context, pairs []*pair) error {
	if v.Embedder == nil || len(pairs) == 0 {
		return nil
	}
	seen := map[string]bool{}
	var texts []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			texts = append(texts, t)
		}
	}
	top := make([][]window, len(pairs))
	for i, pr := range pairs {
		if len(pr.p.units) == 0 || v.SemanticOnlyIfUndecided && !undecided(pr.sig) {
			continue
		}
		top[i] = pr.p.topWindows(pr.c, semanticWindows)
		add(pr.c.text)
		for _, w := range top[i] {
			for u := w.from; u < w.to; u++ {
				add(pr.p.embText(u))
			}
		}
	}
	if len(texts) == 0 {
		return nil
	}
	got, err := v.Embedder.EmbedPassages(ctx, texts)
	if err != nil {
		return fmt.Errorf("embed claims and passage sentences: %w", err)
	}
	vecs := make(map[string][]float32, len(texts))
	for i, t := range texts {
		vecs[t] = got[i]
	}
	for i, pr := range pairs {
		if len(top[i]) == 0 {
			continue
		}
		claimVec := vecs[pr.c.text]
		baseline, err := v.baseline(ctx, pr.c.text, claimVec)
		if err != nil {
			return err
		}
		best := -2.0
		for _, w := range top[i] {
			best = max(best, embed.Cosine(claimVec, pr.p.spanVec(w, vecs)))
		}
		sem := clamp01((best - baseline) / (1 - baseline))
		pr.sig.Cosine, pr.sig.Baseline, pr.sig.Semantic = ptr(round3(best)), ptr(round3(baseline)), ptr(round3(sem))
	}
	return nil
}

// topWindows are the n windows holding most of the claim's words, each
// sentence past the first costing spanPenalty.
func (p *prepared) topWindows(c preparedClaim, n int) []window {
	cv := newCoverage(c, p)
	type scored struct {
		w window
		v float64
	}
	var all []scored
	for _, w := range p.windows() {
		v, _ := cv.window(w.from, w.to, nil)
		all = append(all, scored{w, v - spanPenalty*float64(w.to-w.from-1)})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].v > all[j].v })
	var out []window
	for _, s := range all[:min(n, len(all))] {
		out = append(out, s.w)
	}
	return out
}

// undecided reports a pair whose verdict semantics could change: not
// supported, not contradicted, and holding enough of the claim's words for
// semantics to count (see Combine).
func undecided(s Signals) bool {
	_, verdict := Combine(s)
	if verdict == Supported || s.Lexical < semanticMinLexical {
		return false
	}
	for _, ch := range s.Checks {
		if ch.contradicts() {
			return false
		}
	}
	return true
}

// commonNameShare: a name found in at least this share of the library's
// passages is the library's own subject (the product in its manual) and is
// not checked as a name; its word still counts for coverage.
const commonNameShare = 0.25

// minStatsDocs is how many passages statistics must cover before a name
// is judged common.
const minStatsDocs = 20

func (v *Verifier) commonName(word string) bool {
	if v.Stats == nil || v.Stats.DocCount() < minStatsDocs {
		return false
	}
	return float64(v.Stats.DocFreq(word)) >= commonNameShare*float64(v.Stats.DocCount())
}

func rank(verdict string) int {
	switch verdict {
	case Supported:
		return 2
	case Partial:
		return 1
	}
	return 0
}

// referenceTexts are unrelated sentences: a claim's mean similarity to them
// is the level its similarity to a span must rise above to mean anything.
// With a model whose vectors make all text alike the semantic signal is
// then near zero instead of near one.
var referenceTexts = []string{
	"The weather stayed cold and rainy for most of the week.",
	"She bought fresh bread and cheese at the market on Saturday.",
	"The football match ended in a draw after extra time.",
	"Whales migrate thousands of kilometres every year.",
	"He painted the kitchen walls a pale shade of green.",
	"The museum displays pottery from the bronze age.",
	"오늘은 날씨가 맑고 바람이 조금 불었다.",
	"The recipe calls for two eggs and a cup of sugar.",
}

// baseline is the claim's mean cosine similarity to the reference texts.
func (v *Verifier) baseline(ctx context.Context, claim string, claimVec []float32) (float64, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	model := v.Embedder.Info().ID
	if v.refVecs == nil || v.refModel != model {
		vecs, err := v.Embedder.EmbedPassages(ctx, referenceTexts)
		if err != nil {
			return 0, fmt.Errorf("embed reference sentences: %w", err)
		}
		v.refVecs, v.refModel, v.baselines = vecs, model, map[string]float64{}
	}
	if b, ok := v.baselines[claim]; ok {
		return b, nil
	}
	var sum float64
	for _, r := range v.refVecs {
		sum += embed.Cosine(claimVec, r)
	}
	b := min(sum/float64(len(v.refVecs)), 0.99)
	if len(v.baselines) > 4096 {
		v.baselines = map[string]float64{}
	}
	v.baselines[claim] = b
	return b, nil
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func ptr(x float64) *float64 { return &x }
