package verify

import (
	"strings"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Finding the supporting span: every window of one to three consecutive
// sentences of the passage is scored against the claim, and the best one
// is reported with its offsets.

// preparedClaim is a claim analysed once for all its passages.
type preparedClaim struct {
	text    string
	terms   []term // distinct by key
	weights []float64
	clauses [][]int // term indexes of each clause, when the claim has more than one
	facts   facts
}

func (v *Verifier) prepareClaim(text string) preparedClaim {
	c := preparedClaim{text: text, facts: extractFacts(text)}
	seen := map[string]bool{}
	for _, t := range analyze(text) {
		// Spelled-out numbers are checked as numbers (facts.go); as words
		// "two hundred" would look for "2" and "100".
		if _, spelled := numberWords[t.word]; seen[t.key] || spelled || multipliers[t.word] > 0 {
			continue
		}
		seen[t.key] = true
		c.terms = append(c.terms, t)
		c.weights = append(c.weights, termWeight(v.Stats, t.word))
	}
	c.clauses = clauses(text, c.terms)
	return c
}

// prepared is a passage cut into sentences, analysed once.
type prepared struct {
	p        Passage
	units    []unit
	terms    [][]term
	facts    []facts
	lower    []string
	words    []map[string]bool
	keys     []map[string]bool
	ctxTerms []term
	ctxWords map[string]bool
	midCaps  map[string]bool
	runeAt   []int          // code-point offset of each unit's start and end: runeAt[2i], runeAt[2i+1]
	section  []int          // how many headings precede each unit: spans never cross one
	roles    [][]roleClause // per unit, cut when a role check first needs it (rolesIn)
	common   func(string) bool
}

func prepare(p Passage, common func(string) bool) *prepared {
	pp := &prepared{p: p, ctxWords: map[string]bool{}, midCaps: map[string]bool{}, common: common}
	toRune := runeCounter(p.Text)
	headings := 0
	for _, u := range units(p.Text) {
		if u.kind == KindHeading {
			// Headings name the subject but are not support themselves.
			pp.ctxTerms = append(pp.ctxTerms, analyze(p.Text[u.start:u.end])...)
			headings++
			continue
		}
		pp.section = append(pp.section, headings)
		text := p.Text[u.start:u.end]
		pp.units = append(pp.units, u)
		pp.terms = append(pp.terms, analyze(text))
		pp.facts = append(pp.facts, extractFacts(text))
		pp.lower = append(pp.lower, strings.ToLower(text))
		ws := map[string]bool{}
		for _, w := range splitWords(strings.ToLower(text)) {
			ws[w.text] = true
			ws[stripHangulTail(w.text)] = true
		}
		for w := range ws {
			pp.ctxWords[w] = true
		}
		pp.words = append(pp.words, ws)
		ks := make(map[string]bool, len(ws))
		for w := range ws {
			ks[matchKey(w)] = true
		}
		pp.keys = append(pp.keys, ks)
		pp.runeAt = append(pp.runeAt, toRune(u.start), toRune(u.end))
		for _, t := range rawTokens(text) {
			if !t.initial && isCapitalised(t.text) {
				pp.midCaps[strings.ToLower(stripHangulTail(t.text))] = true
			}
		}
	}
	pp.roles = make([][]roleClause, len(pp.units))
	pp.ctxTerms = append(pp.ctxTerms, analyze(p.Context)...)
	for _, w := range splitWords(strings.ToLower(p.Context + "\n" + headingText(p.Text))) {
		pp.ctxWords[w.text] = true
		pp.ctxWords[stripHangulTail(w.text)] = true
	}
	return pp
}

// headingText is the text of the passage's headings.
func headingText(s string) string {
	var b strings.Builder
	for _, u := range units(s) {
		if u.kind == KindHeading {
			b.WriteString(s[u.start:u.end])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// maxSpanSentences bounds a supporting span: a claim that needs more of
// the passage than this is a summary, not a citation.
const maxSpanSentences = 3

// spanPenalty is subtracted per extra sentence when choosing among
// unsupporting spans (see better).
const spanPenalty = 0.02

// contextCredit is what a claim word found elsewhere in the passage (or in
// its title and section) counts, against 1 inside the span.
const contextCredit = 0.5

// vetoMinLexical: a span that contradicts the claim (another number, the
// opposite polarity) and holds at least this share of the claim's words,
// and no less than the best supporting span, decides the verdict: the
// passage's closest statement of the claim says otherwise.
const vetoMinLexical = 0.6

// candidate is one window of units [from, to) and its result.
type candidate struct {
	from, to int
	r        Result
}

// search scores every window of p against the claim, without the semantic
// signal (see Verifier.addSemantics).
func search(c preparedClaim, p *prepared) []*candidate {
	nu := len(p.units)
	if nu == 0 {
		s := Signals{Checks: checkFacts(c.facts, c.terms, p.view(0, 0, nil))}
		score, verdict := Combine(s)
		return []*candidate{{r: Result{N: p.p.N, Score: round3(score), Verdict: verdict, Signals: s}}}
	}
	lex := newCoverage(c, p)
	var out []*candidate
	for from := range nu {
		for to := from + 1; to <= min(nu, from+maxSpanSentences) && p.section[to-1] == p.section[from]; to++ {
			lexical, missing := lex.window(from, to, nil)
			s := Signals{Lexical: lexical, Missing: missing}
			sv := p.view(from, to, lex)
			if lexical < PartialAt {
				// Unsupported whatever the checks say, and too far from the
				// claim to veto (vetoMinLexical): role binding would change nothing.
				sv.roles = nil
			}
			s.Checks = checkFacts(c.facts, c.terms, sv)
			if len(c.clauses) > 1 {
				s.Clauses = make([]float64, len(c.clauses))
				for k, idx := range c.clauses {
					s.Clauses[k], _ = lex.window(from, to, idx)
				}
			}
			score, verdict := Combine(s)
			out = append(out, &candidate{from: from, to: to, r: Result{N: p.p.N, Score: round3(score), Verdict: verdict, Signals: s}})
		}
	}
	return out
}

// choose picks the reported window: the best by better, unless a window
// that contradicts the claim holds as much of its wording (vetoMinLexical).
func choose(cands []*candidate) *candidate {
	var best, veto *candidate
	for _, c := range cands {
		if best == nil || better(c, best) {
			best = c
		}
		if contradicted(c.r.Signals.Checks) && (veto == nil || c.r.Signals.Lexical > veto.r.Signals.Lexical) {
			veto = c
		}
	}
	if veto != nil && best.r.Verdict != Unsupported && veto.r.Signals.Lexical >= max(vetoMinLexical, best.r.Signals.Lexical) {
		return veto
	}
	return best
}

// topCandidates returns the n best candidates by better.
func topCandidates(cands []*candidate, n int) []*candidate {
	top := make([]*candidate, 0, n+1)
	for _, c := range cands {
		i := len(top)
		for i > 0 && better(c, top[i-1]) {
			i--
		}
		if i < n {
			top = append(top, nil)
			copy(top[i+1:], top[i:])
			top[i] = c
			if len(top) > n {
				top = top[:n]
			}
		}
	}
	return top
}

// result is the reported Result of candidate c, with its span.
func (p *prepared) result(c *candidate) Result {
	r := c.r
	r.Reason = reason(r.Verdict, r.Signals)
	if len(p.units) == 0 {
		return r
	}
	bs, be := p.units[c.from].start, p.units[c.to-1].end
	r.Span = Span{
		Offsets:      corpus.Offsets{Start: p.p.Start + p.runeAt[2*c.from], End: p.p.Start + p.runeAt[2*(c.to-1)+1], Unit: corpus.UnitChar},
		Text:         p.p.Text[bs:be],
		Sentences:    c.to - c.from,
		PassageStart: bs,
		PassageEnd:   be,
	}
	return r
}

func contradicted(cs []Check) bool {
	for _, c := range cs {
		if c.contradicts() {
			return true
		}
	}
	return false
}

// better orders candidate spans: a better verdict first; among supporting
// spans the one with fewer sentences, then the higher score; among
// unsupported spans the one holding most of the claim's words (less a
// small penalty per extra sentence), so the reader sees where the passage
// talks about the claim and why it does not support it.
func better(a, b *candidate) bool {
	an, bn := a.to-a.from, b.to-b.from
	if ra, rb := rank(a.r.Verdict), rank(b.r.Verdict); ra != rb {
		return ra > rb
	}
	if rank(a.r.Verdict) == 0 {
		ka := a.r.Signals.Lexical - spanPenalty*float64(an-1)
		kb := b.r.Signals.Lexical - spanPenalty*float64(bn-1)
		if ka != kb {
			return ka > kb
		}
		return a.r.Score > b.r.Score
	}
	if an != bn {
		return an < bn
	}
	return a.r.Score > b.r.Score
}

// coverage computes weighted lexical coverage of a claim by windows of a
// passage.
type coverage struct {
	c     preparedClaim
	match [][]bool // match[i][u]: claim term i occurs in unit u
	inCtx []bool   // claim term i occurs somewhere in the passage or its context
	total float64
}

func newCoverage(c preparedClaim, p *prepared) *coverage {
	cv := &coverage{c: c, match: make([][]bool, len(c.terms)), inCtx: make([]bool, len(c.terms))}
	for i, t := range c.terms {
		cv.match[i] = make([]bool, len(p.units))
		for u := range p.units {
			for _, pt := range p.terms[u] {
				if termMatches(t, pt) {
					cv.match[i][u] = true
					cv.inCtx[i] = true
					break
				}
			}
		}
		for _, pt := range p.ctxTerms {
			if termMatches(t, pt) {
				cv.inCtx[i] = true
				break
			}
		}
		cv.total += c.weights[i]
	}
	return cv
}

// window returns the coverage of the claim's terms (or of the terms at
// indexes only, when given) by units [from, to), and the words missing.
func (cv *coverage) window(from, to int, only []int) (float64, []string) {
	var got, total float64
	var missing []string
	add := func(i int) {
		total += cv.c.weights[i]
		for u := from; u < to; u++ {
			if cv.match[i][u] {
				got += cv.c.weights[i]
				return
			}
		}
		if cv.inCtx[i] {
			got += contextCredit * cv.c.weights[i]
			return
		}
		missing = append(missing, cv.c.terms[i].word)
	}
	if only != nil {
		for _, i := range only {
			add(i)
		}
	} else {
		for i := range cv.c.terms {
			add(i)
		}
	}
	if total == 0 {
		return 1, missing
	}
	return round3(got / total), missing
}

// relevantCoverage is the share of the claim's words a sentence must hold
// for a negation of a single word to count against the claim: "not text"
// in a sentence about scanned PDFs says nothing about a claim on text
// recognition tools. A negated verb with its object ("does not send your
// documents") is specific enough on its own.
const relevantCoverage = 0.4

// within is the coverage of the claim by unit u alone, without credit for
// words elsewhere in the passage.
func (cv *coverage) within(u int) float64 {
	var got float64
	for i := range cv.c.terms {
		if cv.match[i][u] {
			got += cv.c.weights[i]
		}
	}
	if cv.total == 0 {
		return 0
	}
	return got / cv.total
}

// view is what the hard-constraint checks see of units [from, to).
func (p *prepared) view(from, to int, lex *coverage) *spanView {
	sv := &spanView{midCaps: p.midCaps, ctxWords: p.ctxWords, common: p.common, roles: func() []roleClause { return p.rolesIn(from, to) },
		lower: p.lower[from:to], words: p.words[from:to], keys: p.keys[from:to]}
	for u := from; u < to; u++ {
		for _, t := range p.terms[u] {
			if t.hangul {
				sv.hangul = append(sv.hangul, t.key)
			}
		}
		f := p.facts[u]
		sv.units = append(sv.units, spanUnit{numbers: f.numbers, terms: p.terms[u]})
		sv.facts.numbers = append(sv.facts.numbers, f.numbers...)
		sv.facts.dates = append(sv.facts.dates, f.dates...)
		sv.facts.codes = append(sv.facts.codes, f.codes...)
		sv.facts.entities = append(sv.facts.entities, f.entities...)
		for _, n := range f.negation {
			n.relevant = lex == nil || len(n.head()) > 1 || lex.within(u) >= relevantCoverage
			sv.facts.negation = append(sv.facts.negation, n)
		}
	}
	return sv
}

// rolesIn returns the clauses of units [from, to), cutting each unit once:
// most claims have no number or name to bind, so most passages never need them.
func (p *prepared) rolesIn(from, to int) []roleClause {
	var out []roleClause
	for u := from; u < to; u++ {
		if p.roles[u] == nil {
			text := p.p.Text[p.units[u].start:p.units[u].end]
			p.roles[u] = roleClauses(text, p.terms[u], p.facts[u], nameTokens(text, p.midCaps))
			if p.roles[u] == nil {
				p.roles[u] = []roleClause{}
			}
		}
		out = append(out, p.roles[u]...)
	}
	return out
}

// embText is what is embedded for unit u: its plain text.
func (p *prepared) embText(u int) string {
	return plainText(p.p.Text[p.units[u].start:p.units[u].end], p.units[u].kind)
}

// spanVec is the sum of the units' vectors (cosine normalises it).
func (p *prepared) spanVec(from, to int, vecs map[string][]float32) []float32 {
	if to-from == 1 {
		return vecs[p.embText(from)]
	}
	var sum []float32
	for u := from; u < to; u++ {
		vec := vecs[p.embText(u)]
		if sum == nil {
			sum = make([]float32, len(vec))
		}
		for i, x := range vec {
			sum[i] += x
		}
	}
	return sum
}
