// Package verify owns checking an answer's claims against the passages they
// cite, and recognising model-made text that must never become evidence.
//
// Claims splits a Markdown answer into sentence-level claims and decides
// which citation markers cover each one (markers copied out of evidence
// text never count: EchoedMarkers). A Verifier finds, for every (claim,
// cited passage) pair, the passage sentence(s) that best support the claim,
// with offsets into the document's stored text, and scores the support from
// recorded signals: lexical coverage weighted by term statistics, hard
// constraints (numbers, dates, codes, names and negations must match),
// semantic similarity from the embedding model, and an optional entailment
// model. Combine is the one function that turns signals into a score and a
// verdict. Detector recognises chat transcripts, exported answers and
// prompt text by their content, so ingest can keep them out of evidence.
//
// The package depends only on corpus and embed; the answer pipeline, the
// store and the UI use it.
package verify

import (
	"context"
	"fmt"
	"math"
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
	// Lexical is the share of the claim's content words found in the span,
	// weighted by rarity (words found only elsewhere in the passage count half).
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
	// Clauses is the lexical coverage of each clause, for a claim of several.
	Clauses []float64 `json:"clauses,omitempty"`
	Checks  []Check   `json:"checks,omitempty"`  // hard constraints and their outcome
	Missing []string  `json:"missing,omitempty"` // claim words the span lacks
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
	// whose verdict it could change: the best window is neither supported
	// nor failing a hard constraint, and holds enough of the claim's words
	// for semantics to count (see Combine). Other pairs record no semantic
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
// Lexical coverage and hard constraints are computed for every window of
// every cited passage; the semantic signal only for the best few windows of
// each (claim, passage) pair, whose sentences are embedded together with
// the claims in one batch: semantics can lift a window but never rescue a
// failed constraint, so windows far behind lexically cannot win through it.
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
			pairs = append(pairs, &pair{claim: i, result: len(out[i].Results), c: cl, p: p, cands: search(cl, p)})
			out[i].Results = append(out[i].Results, Result{})
		}
	}
	if err := v.addSemantics(ctx, pairs); err != nil {
		return nil, err
	}
	for _, pr := range pairs {
		out[pr.claim].Results[pr.result] = pr.p.result(choose(pr.cands))
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
	cands         []*candidate
}

// semanticWindows is how many of a pair's best windows get the semantic
// signal when the best is not already supported (semantics only lifts, so
// a supported best window cannot be overtaken).
const semanticWindows = 2

// addSemantics embeds the claims and the sentences of each pair's best
// windows in one batch and adds the semantic signal to those windows.
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
	top := make([][]*candidate, len(pairs))
	for i, pr := range pairs {
		top[i] = topCandidates(pr.cands, semanticWindows)
		if v.SemanticOnlyIfUndecided && !undecided(top[i][0]) {
			top[i] = nil
			continue
		}
		add(pr.c.text)
		if top[i][0].r.Verdict == Supported {
			// Semantics cannot change the choice; it is still recorded.
			top[i] = top[i][:1]
		}
		for _, c := range top[i] {
			for u := c.from; u < c.to; u++ {
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
		for _, c := range top[i] {
			s := &c.r.Signals
			cos := embed.Cosine(claimVec, pr.p.spanVec(c.from, c.to, vecs))
			sem := clamp01((cos - baseline) / (1 - baseline))
			s.Cosine, s.Baseline, s.Semantic = ptr(round3(cos)), ptr(round3(baseline)), ptr(round3(sem))
			score, verdict := Combine(*s)
			c.r.Score, c.r.Verdict = round3(score), verdict
		}
	}
	return nil
}

// undecided reports a best window whose verdict semantics could change.
func undecided(c *candidate) bool {
	s := c.r.Signals
	if c.r.Verdict == Supported || s.Lexical < semanticMinLexical {
		return false
	}
	for _, ch := range s.Checks {
		if !ch.OK {
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
