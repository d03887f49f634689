package verify

import (
	"strings"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/facts"
)

// Verifying a claim against a passage: every window of one to three
// consecutive sentences is scored by how much of the claim it holds; the
// best is the span reported (the supporting sentences a reader is shown).
// Each atom of the claim (atoms.go) is placed in the window that holds most
// of its clause and checked against the whole passage from there.

// preparedClaim is a claim analysed once for all its passages.
type preparedClaim struct {
	text    string
	terms   []term // distinct by key
	weights []float64
	facts   textFacts
	clauses []clause
	atoms   []atom
}

func (v *Verifier) prepareClaim(text string) preparedClaim {
	terms := analyze(text)
	c := preparedClaim{text: text, facts: extractFacts(text, terms)}
	seen := map[string]bool{}
	for _, t := range terms {
		// Spelled-out numbers are checked as numbers; as words "two
		// hundred" would look for "2" and "100".
		if seen[t.key] || facts.IsNumberWord(t.word) {
			continue
		}
		seen[t.key] = true
		w := termWeight(v.Stats, t.word)
		if lightWords[t.word] {
			w *= lightWeight
		}
		c.terms = append(c.terms, t)
		c.weights = append(c.weights, w)
	}
	c.clauses = clauseSpans(text, c.terms)
	c.atoms = atomsOf(&c)
	return c
}

// prepared is a passage cut into sentences, analysed once.
type prepared struct {
	p         Passage
	units     []unit
	terms     [][]term
	facts     []textFacts
	lower     []string
	ctxTerms  []term
	ctxFacts  textFacts // of the passage's context and headings
	ctxLower  string
	names     *facts.NameIndex   // the passage's and its context's words, for names
	ctxNames  *facts.NameIndex   // its context's alone
	unitNames []*facts.NameIndex // each unit's, built when a name check first needs it (unitName)
	years     []int              // every year the passage and its context state (a dateline's too)
	midCaps   map[string]bool
	runeAt    []int          // code-point offset of each unit's start and end: runeAt[2i], runeAt[2i+1]
	section   []int          // how many headings precede each unit: spans never cross one
	roles     [][]roleClause // per unit, cut when a role check first needs it (rolesIn)
	common    func(string) bool
}

func prepare(p Passage, common func(string) bool) *prepared {
	pp := &prepared{p: p, midCaps: map[string]bool{}, common: common}
	toRune := runeCounter(p.Text)
	headings := 0
	var context strings.Builder
	context.WriteString(p.Context)
	for _, u := range units(p.Text) {
		text := p.Text[u.start:u.end]
		if u.kind == KindHeading {
			// Headings name the subject but are not support themselves.
			context.WriteString("\n" + plainText(text, KindHeading))
			headings++
			continue
		}
		pp.section = append(pp.section, headings)
		pp.units = append(pp.units, u)
		terms := analyze(text)
		f := extractFacts(text, terms)
		pp.terms = append(pp.terms, terms)
		pp.facts = append(pp.facts, f)
		pp.lower = append(pp.lower, strings.ToLower(text))
		pp.runeAt = append(pp.runeAt, toRune(u.start), toRune(u.end))
		for _, t := range f.tokens {
			if !t.Initial && isCapitalised(t.Text) {
				pp.midCaps[strings.ToLower(facts.StripHangulTail(t.Text))] = true
			}
		}
	}
	ctx := context.String()
	pp.ctxTerms = analyze(ctx)
	pp.ctxFacts = extractFacts(ctx, pp.ctxTerms)
	pp.ctxLower = strings.ToLower(ctx)
	for _, t := range pp.ctxFacts.tokens {
		if isCapitalised(t.Text) {
			pp.midCaps[strings.ToLower(facts.StripHangulTail(t.Text))] = true
		}
	}
	pp.names = facts.NewNameIndex(append([]string{p.Text}, ctx)...)
	pp.ctxNames = facts.NewNameIndex(ctx)
	addYears := func(f textFacts) {
		for _, q := range append(f.numbers, f.years...) {
			if q.Kind == facts.Year {
				pp.years = append(pp.years, int(q.Value))
			}
		}
		for _, d := range f.dates {
			if d.Year > 0 {
				pp.years = append(pp.years, d.Year)
			}
		}
	}
	for _, f := range pp.facts {
		addYears(f)
	}
	addYears(pp.ctxFacts)
	pp.roles = make([][]roleClause, len(pp.units))
	pp.unitNames = make([]*facts.NameIndex, len(pp.units))
	return pp
}

// maxSpanSentences bounds a supporting span: a claim that needs more of
// the passage than this is a summary, not a citation.
const maxSpanSentences = 3

// contextCredit is what a claim word found elsewhere in the passage (or in
// its title and section) counts, against 1 inside the span.
const contextCredit = 0.5

// windows lists every window of one to maxSpanSentences units within one
// section.
func (p *prepared) windows() []window {
	var out []window
	for from := range p.units {
		for to := from + 1; to <= min(len(p.units), from+maxSpanSentences) && p.section[to-1] == p.section[from]; to++ {
			out = append(out, window{from, to})
		}
	}
	return out
}

// bestWindow is the window holding most of the terms at indexes only (all
// the claim's terms when nil), fewer sentences first on a tie.
func (p *prepared) bestWindow(cv *coverage, only []int) (window, float64) {
	best, bestV := window{}, -1.0
	for _, w := range p.windows() {
		v, _ := cv.window(w.from, w.to, only)
		if v > bestV+1e-9 || v > bestV-1e-9 && w.to-w.from < best.to-best.from {
			best, bestV = w, v
		}
	}
	return best, bestV
}

// topicNameWeight scales the weight of a name or number the passage's
// title or headings give: stating it is stating the topic, not the claim.
const topicNameWeight = 0.5

// inContext reports a number the passage's title or headings state.
func (p *prepared) inContext(q quantity) bool {
	for _, c := range append(p.ctxFacts.numbers, p.ctxFacts.years...) {
		if q.Same(c.Quantity) && q.Kind != facts.Year {
			return true
		}
	}
	return false
}

// spanPenalty is what each sentence past the first costs a window when the
// span to report is chosen: a sentence that adds only a name the passage
// gives elsewhere anyway does not widen it.
const spanPenalty = 0.15

// spanWindow is the window to report as the supporting span: the one
// holding most of the claim, less spanPenalty a sentence past the first.
func (p *prepared) spanWindow(cv *coverage) window {
	best, bestV := window{}, -2.0
	for _, w := range p.windows() {
		v, _ := cv.window(w.from, w.to, nil)
		if v -= spanPenalty * float64(w.to-w.from-1); v > bestV+1e-9 {
			best, bestV = w, v
		}
	}
	return best
}

// clauseWindow is the window stating clause k: the one holding most of its
// ordinary words (the terms of its words atom), then the one of fewest
// sentences, then the one holding most of its terms (values included).
func (p *prepared) clauseWindow(cv *coverage, terms []int, atoms []atom, k int) window {
	// A clause of values only ("Their 194 yards | and 11 first downs …")
	// is placed by the claim's ordinary words.
	var ordinary, all []int
	for _, a := range atoms {
		if a.kind == atomWords {
			all = append(all, a.terms...)
			if a.clause == k {
				ordinary = a.terms
			}
		}
	}
	if ordinary == nil {
		ordinary = all
	}
	if ordinary == nil {
		ordinary = terms
	}
	best, bestO, bestA := window{}, -1.0, -1.0
	for _, w := range p.windows() {
		o, _ := cv.window(w.from, w.to, ordinary)
		all, _ := cv.window(w.from, w.to, terms)
		switch {
		case o > bestO+1e-9,
			o > bestO-1e-9 && w.to-w.from < best.to-best.from,
			o > bestO-1e-9 && w.to-w.from == best.to-best.from && all > bestA+1e-9:
			best, bestO, bestA = w, o, all
		}
	}
	return best
}

// evaluate scores every atom of c against the passage and returns the
// signals (without the semantic and entailment ones) and the window to
// report as the supporting span.
func (p *prepared) evaluate(c preparedClaim) (Signals, window) {
	cv := newCoverage(c, p)
	span := p.spanWindow(cv)
	// A clause is stated where its ordinary words are, in as few sentences
	// as hold them; its values pick among such windows. So a window is not
	// stretched to take in a value the claim swapped in from another
	// sentence, and of two sentences saying the same of two teams the one
	// naming the claim's team is taken.
	clauseWin := make([]window, len(c.clauses))
	for k, cl := range c.clauses {
		clauseWin[k] = p.clauseWindow(cv, cl.terms, c.atoms, k)
	}
	var s Signals
	var sum, total float64
	for _, a := range c.atoms {
		w := clauseWin[a.clause]
		var score float64
		var ch *Check
		switch a.kind {
		case atomWords:
			var missing []string
			score, missing = cv.window(w.from, w.to, a.terms)
			s.Missing = append(s.Missing, missing...)
		case CheckNumber:
			c, v := p.checkNumber(c.facts.numbers[a.index], c.facts.numbers, w)
			ch, score = &c, v
		case CheckDate:
			c, v := p.checkDate(c.facts.dates[a.index], w)
			ch, score = &c, v
		case CheckCode:
			c, v := p.checkCode(c.facts.codes[a.index], c.facts, w)
			ch, score = &c, v
		case CheckEntity:
			c, v, checked := p.checkName(c.facts.names[a.index], c.facts, w)
			if !checked {
				continue
			}
			ch, score = &c, v
		case CheckNegation:
			c, v := p.checkClaimNegation(c.facts.negation[a.index], w, cv)
			ch, score = &c, v
		}
		if ch != nil {
			s.Checks = append(s.Checks, *ch)
		}
		weight := a.weight
		if score == 1 && (a.kind == CheckEntity && p.ctxNames.HasPhrase(a.text) || a.kind == CheckNumber && p.inContext(c.facts.numbers[a.index])) {
			// The document's own subject (its title or heading names it):
			// a claim about it names it whatever it says of it.
			weight *= topicNameWeight
		}
		s.Facts = append(s.Facts, Fact{Kind: a.kind, Text: a.text, Score: round3(score), Weight: round3(weight)})
		sum += weight * score
		total += weight
	}
	for k := range c.clauses {
		s.Checks = append(s.Checks, p.clauseContradictions(c, k, clauseWin[k], cv)...)
	}
	s.Lexical = 1
	if total > 0 {
		s.Lexical = round3(sum / total)
	}
	return s, span
}

// clauseContradictions are the checks that fail when the sentences stating
// clause k say the opposite: a negation of what it asserts, a comparison
// turned round, a value bound to other words (binding.go).
func (p *prepared) clauseContradictions(c preparedClaim, k int, w window, cv *coverage) []Check {
	if len(p.units) == 0 {
		return nil
	}
	cl := c.clauses[k]
	var terms []term
	for _, i := range cl.terms {
		terms = append(terms, c.terms[i])
	}
	var spanNeg []negScope
	for u := w.from; u < w.to; u++ {
		for _, n := range p.facts[u].negation {
			n.relevant = len(n.head()) > 1 || cv.within(u) >= relevantCoverage
			spanNeg = append(spanNeg, n)
		}
	}
	var claimNeg []negScope
	for _, n := range c.facts.negation {
		if clauseAt(c.clauses, n.pos) == k {
			claimNeg = append(claimNeg, n)
		}
	}
	out := deniedByPassage(claimNeg, terms, spanNeg)
	out = append(out, checkOpposites(clausePolar(c, cl), p.wordsIn(w))...)
	lex, _ := cv.window(w.from, w.to, cl.terms)
	if lex >= PartialAt {
		out = append(out, checkBinding(c.facts, cl, terms, func() []roleClause { return p.rolesIn(w.from, w.to) }, p.common, p.midCaps)...)
	}
	return out
}

// clausePolar are the comparison words of the claim inside clause cl.
func clausePolar(c preparedClaim, cl clause) map[string]bool {
	return polarWords(c.text[cl.start:cl.end])
}

// wordsIn is the set of lower-case words of window w.
func (p *prepared) wordsIn(w window) map[string]bool {
	ws := map[string]bool{}
	for u := w.from; u < w.to; u++ {
		for _, x := range splitWords(p.lower[u]) {
			ws[x.text] = true
		}
	}
	return ws
}

// result is the reported Result for window w.
func (p *prepared) result(s Signals, w window) Result {
	score, verdict := Combine(s)
	r := Result{N: p.p.N, Score: round3(score), Verdict: verdict, Signals: s}
	r.Reason = reason(verdict, s)
	if len(p.units) == 0 {
		return r
	}
	bs, be := p.units[w.from].start, p.units[w.to-1].end
	r.Span = Span{
		Offsets:      corpus.Offsets{Start: p.p.Start + p.runeAt[2*w.from], End: p.p.Start + p.runeAt[2*(w.to-1)+1], Unit: corpus.UnitChar},
		Text:         p.p.Text[bs:be],
		Sentences:    w.to - w.from,
		PassageStart: bs,
		PassageEnd:   be,
	}
	return r
}

// coverage computes weighted lexical coverage of a claim by windows of a
// passage.
type coverage struct {
	c     preparedClaim
	match [][]float64 // match[i][u]: how well claim term i occurs in unit u (1, nearMatch or 0)
	inCtx []float64   // the best match of claim term i anywhere in the passage or its context
	total float64
}

// nearMatch is the credit of a word found only as a word sharing its
// stem's first letters (see nearTerms): "acquisition" for "acquired",
// "renovated" for "renovations".
const nearMatch = 0.7

func newCoverage(c preparedClaim, p *prepared) *coverage {
	cv := &coverage{c: c, match: make([][]float64, len(c.terms)), inCtx: make([]float64, len(c.terms))}
	for i, t := range c.terms {
		cv.match[i] = make([]float64, len(p.units))
		for u := range p.units {
			for _, pt := range p.terms[u] {
				m := 0.0
				switch {
				case termMatches(t, pt):
					m = 1
				case nearTerms(t, pt):
					m = nearMatch
				}
				if m > cv.match[i][u] {
					cv.match[i][u] = m
					cv.inCtx[i] = max(cv.inCtx[i], m)
				}
			}
		}
		for _, pt := range p.ctxTerms {
			if termMatches(t, pt) {
				cv.inCtx[i] = 1
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
		best := 0.0
		for u := from; u < to; u++ {
			best = max(best, cv.match[i][u])
		}
		best = max(best, contextCredit*cv.inCtx[i])
		if best == 0 {
			missing = append(missing, cv.c.terms[i].word)
		}
		got += best * cv.c.weights[i]
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
		got += cv.match[i][u] * cv.c.weights[i]
	}
	if cv.total == 0 {
		return 0
	}
	return got / cv.total
}

// unitName is the name index of unit u.
func (p *prepared) unitName(u int) *facts.NameIndex {
	if p.unitNames[u] == nil {
		p.unitNames[u] = facts.NewNameIndex(p.p.Text[p.units[u].start:p.units[u].end])
	}
	return p.unitNames[u]
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
func (p *prepared) spanVec(w window, vecs map[string][]float32) []float32 {
	if w.to-w.from == 1 {
		return vecs[p.embText(w.from)]
	}
	var sum []float32
	for u := w.from; u < w.to; u++ {
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
