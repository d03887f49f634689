package cache

import (
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/facts"
)

// parser turns a question's pieces into the keys of its askForm. It looks
// one piece back (a unit counts after a number) and one ahead ("last" is a
// time only before a period: last month), and follows relation words and
// Korean role particles, whose two sides must not be swapped.
type parser struct {
	form       *askForm
	pieces     []piece
	lastNumber string        // the number the previous piece wrote, if it was one
	afterCount bool          // the previous piece was 몇 (how many), so a unit may follow
	lastKey    string        // the last content key: what a relation word links from
	relation   *openRelation // a relation word waiting for what it links to
	phrase     []string      // the content keys of the noun phrase being read (저축 계좌)
}

// openRelation is "from → to" as read so far: "convert PDF to Word" is
// to, from pdf, to [word].
type openRelation struct {
	word, from string
	to         []string
}

func (p *parser) run() {
	for i := 0; i < len(p.pieces); i++ {
		if p.pieces[i].initial { // a new sentence
			p.closeRelation()
			p.lastKey, p.phrase = "", nil
		}
		if p.pieces[i].hangul {
			i += p.korean(i)
		} else {
			i += p.latin(i)
		}
	}
	p.closeRelation()
}

// key adds a key; content keys are what an open relation links to, and
// extend the noun phrase a Korean role particle may close.
func (p *parser) key(key string, kind keyKind, display string) {
	p.form.add(key, kind, display)
	switch kind {
	case kindWord, kindEntity, kindNumber, kindIdentifier, kindUnit, kindComparative:
		p.lastKey = key
		if p.relation != nil {
			p.relation.to = append(p.relation.to, key)
		}
		if kind != kindComparative && kind != kindUnit {
			p.phrase = append(p.phrase, key)
		}
	}
}

func (p *parser) openRelation(word string) {
	p.closeRelation()
	if p.lastKey != "" {
		p.relation = &openRelation{word: word, from: p.lastKey}
	}
}

func (p *parser) closeRelation() {
	r := p.relation
	p.relation = nil
	if r == nil || len(r.to) == 0 {
		return
	}
	to := strings.Join(r.to, ",")
	p.form.add("r:"+r.word+":"+r.from+">"+to, kindDirection, r.from+" "+r.word+" "+to)
}

// role records a Korean role particle with the noun phrase it closes
// (당좌 계좌로 → 로: 당좌,계좌).
func (p *parser) role(role string) {
	if len(p.phrase) > 0 {
		ph := strings.Join(p.phrase, ",")
		p.form.add("r:"+role+":"+ph, kindDirection, ph+" "+role)
	}
	p.phrase = nil
}

func (p *parser) next(i int) (piece, bool) {
	if i+1 < len(p.pieces) {
		return p.pieces[i+1], true
	}
	return piece{}, false
}

// latin classifies a piece written in Latin letters or digits; it returns
// how many following pieces it consumed.
func (p *parser) latin(i int) int {
	pc := p.pieces[i]
	w, l := pc.text, strings.ToLower(pc.text)
	prevNumber := p.lastNumber
	p.lastNumber, p.afterCount = "", false
	f := p.form
	if t := tenseWords[l]; t != "" {
		f.add("t:"+t, kindTime, t+" tense")
	}
	digit := l[0] >= '0' && l[0] <= '9' // the number patterns all start with one
	switch {
	case strings.HasPrefix(l, "wh_"):
		f.add(l, kindQuestion, strings.TrimPrefix(l, "wh_"))
	case relationWords[l] != "":
		if l == "than" {
			f.add("c:than", kindComparative, w)
		}
		p.openRelation(relationWords[l])
	case digit && dateRe.MatchString(l):
		f.add("t:date:"+l, kindTime, w)
	case digit && numberRe.MatchString(l):
		n := canonNumber(l)
		p.key(n, kindNumber, w)
		p.lastNumber = n
	case digit && ordinalRe.MatchString(l):
		p.key("#"+ordinalRe.FindStringSubmatch(l)[1], kindNumber, w)
	case digit && numberUnitRe.MatchString(l):
		m := numberUnitRe.FindStringSubmatch(l)
		switch u := unitOf(m[2]); {
		case u != "":
			p.key(m[1], kindNumber, m[1])
			p.key("u:"+u, kindUnit, m[2])
		case m[2] == "am" || m[2] == "pm":
			p.key(m[1], kindNumber, m[1])
			f.add("t:"+m[2], kindTime, m[2])
		default:
			p.key(identifierKey(l), kindIdentifier, w)
		}
	case prevNumber != "" && p.unitAfterNumber(w, l):
	case isIdentifier(w):
		p.key(identifierKey(l), kindIdentifier, w)
	case numberWord(l) != "":
		p.key(numberWord(l), kindNumber, w)
		p.lastNumber = numberWord(l)
	case ordinalWord(l) != "":
		p.key("#"+ordinalWord(l), kindNumber, w)
	case monthOf(l) != "" && (l != "may" || p.isMonthMay(i)):
		f.add("t:month:"+monthOf(l), kindTime, w)
	case weekdayOf(l) != "":
		f.add("t:day:"+weekdayOf(l), kindTime, w)
	case relativeTimes[l] != "" && p.periodFollows(i):
		f.add("t:rel:"+relativeTimes[l], kindTime, w)
	case timeWords[l] != "" && l != "am":
		f.add("t:"+timeWords[l], kindTime, w)
	case isNegation(l):
		f.negations++
	case strings.HasPrefix(l, "non-"):
		f.negations++
		p.word(pc, w[4:], l[4:])
	case comparatives[l] != "":
		p.key("c:"+comparatives[l], kindComparative, w)
	case comparativeForms[l]:
		p.key("c:"+l, kindComparative, w)
	case scopeWords[l] != "":
		f.add("s:"+scopeWords[l], kindScope, w)
	case modals[l] != "":
		f.add("m:"+modals[l], kindModal, w)
	case whWords[l] != "":
		f.add(whWords[l], kindQuestion, l)
	case stopWords[l]:
	case unitOf(l) != "" && !facts.AmbiguousUnit(l):
		p.key("u:"+unitOf(l), kindUnit, w)
	default:
		p.word(pc, w, l)
	}
	return 0
}

// word adds an ordinary word: hyphens dropped (wi-fi = wifi), stemmed,
// synonyms merged; written with a capital inside a sentence it is a name.
func (p *parser) word(pc piece, w, l string) {
	l = strings.ReplaceAll(l, "-", "")
	if l == "" || stopWords[l] {
		return
	}
	key := stem(l)
	if s, ok := synonyms[key]; ok {
		key = s
	}
	kind := kindWord
	if isCapitalised(w) && !pc.initial {
		kind = kindEntity
	}
	p.key(key, kind, w)
}

// unitAfterNumber adds w as a unit when it is one right after a number
// ("5 m", "5 A", "10 seconds"); a lone "A" or "m" is not.
func (p *parser) unitAfterNumber(w, l string) bool {
	u := unitOf(l)
	if u == "" || (l == "a" && w != "A") {
		return false
	}
	p.key("u:"+u, kindUnit, w)
	return true
}

// isMonthMay tells the month May from the verb: written with a capital
// inside a sentence, or next to a number (3 May, May 2024).
func (p *parser) isMonthMay(i int) bool {
	pc := p.pieces[i]
	if isCapitalised(pc.text) && !pc.initial {
		return true
	}
	if i > 0 && numberRe.MatchString(p.pieces[i-1].text) {
		return true
	}
	next, ok := p.next(i)
	return ok && numberRe.MatchString(next.text)
}

// periodFollows reports "last", "this", "next" used of time (last month,
// next Monday), not of order (the last page).
func (p *parser) periodFollows(i int) bool {
	next, ok := p.next(i)
	if !ok {
		return false
	}
	n := strings.ToLower(next.text)
	return periods[n] || monthOf(n) != "" || weekdayOf(n) != ""
}

// korean classifies a Hangul piece; it returns how many following pieces
// it consumed.
func (p *parser) korean(i int) int {
	pc := p.pieces[i]
	w := pc.text
	prevNumber, afterCount := p.lastNumber, p.afterCount
	p.lastNumber, p.afterCount = "", false
	f := p.form
	if koreanPast(w) {
		f.add("t:past", kindTime, "past tense")
	}
	if !pc.first { // glued to digits (10분) or to a Latin word (A-100이, PDF로)
		p.koreanGlued(w, prevNumber)
		return 0
	}
	if facts.IsKoreanNegation(w) {
		f.negations++
		p.phrase = nil
		return 0
	}
	base, role := koreanRole(w)
	if base == "" {
		role = ""
	} else if role != "" {
		w = base
	}
	if role == "보다" {
		f.add("c:than", kindComparative, "보다")
	}
	next, hasNext := p.next(i)
	hasNext = hasNext && next.first && next.hangul
	if n, ok := koreanNumberWords[w]; ok && hasNext {
		if strings.HasPrefix(next.text, "번째") || next.text == "째" {
			p.key("#"+n, kindNumber, w+" "+next.text)
			p.phrase = nil
			return 1
		}
		if c := koreanStem(next.text); koreanCounters[c] || koreanUnits[c] != "" {
			p.key(n, kindNumber, w)
			if u := koreanUnits[c]; u != "" {
				p.key(u, kindUnit, next.text)
			}
			p.phrase = nil
			return 1
		}
	}
	if w == "몇" {
		p.phrase = nil
		if hasNext && strings.HasPrefix(next.text, "시") && koreanStem(next.text) == "시" {
			f.add("wh_when", kindQuestion, "몇 시")
			return 1
		}
		f.add("wh_count", kindQuestion, w)
		p.afterCount = true
		return 0
	}
	s := koreanStem(w)
	switch {
	case koreanGeneric[s] || koreanStop[s]:
		p.phrase = nil
	case koreanUnits[s] != "" && afterCount:
		p.key(koreanUnits[s], kindUnit, w)
		p.phrase = nil
	case koreanKeys[s] != nil:
		for _, k := range koreanKeys[s] {
			f.add(k, kindOfKey(k), w)
		}
		p.phrase = nil
	default:
		if b, ok := strings.CutSuffix(s, "당"); ok && utf8.RuneCountInString(b) >= 2 {
			f.add("s:per", kindScope, "당")
			s = b
		}
		p.key(s, kindWord, w)
		switch {
		case role != "":
			p.role(role)
		case s != w: // a particle or an ending closed the noun phrase
			p.phrase = nil
		}
	}
	return 0
}

// koreanGlued reads a Hangul piece glued to the piece before it: what
// follows a number (10분, 3월, 2명), or a particle after a Latin word
// (PDF로 marks a role; A-100이 only closes the phrase).
func (p *parser) koreanGlued(w, prevNumber string) {
	if prevNumber != "" {
		p.koreanAfterNumber(w, prevNumber)
		p.phrase = nil
		return
	}
	if base, role := koreanRole(w); role != "" && base == "" {
		if role == "보다" {
			p.form.add("c:than", kindComparative, "보다")
		}
		p.role(role)
		return
	}
	p.phrase = nil
}

// koreanAfterNumber reads what is glued to a number: a unit (10분, 5킬로),
// a month (3월), a counter (2명, 10개) or a noun (12페이지).
func (p *parser) koreanAfterNumber(w, n string) {
	f := p.form
	for _, part := range koreanParticles {
		if w == part {
			return // 52는
		}
	}
	s, _ := cutParticle(w)
	switch {
	case koreanUnits[s] != "":
		p.key(koreanUnits[s], kindUnit, s)
	case s == "월":
		f.add("t:month:"+n, kindTime, n+s)
	case s == "시":
		f.add("t:oclock", kindTime, s)
	case koreanCounters[s]:
	default:
		if st := koreanStem(s); !koreanStop[st] {
			p.key(st, kindWord, s)
		}
	}
}

// kindOfKey tells a fixed key's kind by its prefix.
func kindOfKey(k string) keyKind {
	switch {
	case strings.HasPrefix(k, "wh_"):
		return kindQuestion
	case strings.HasPrefix(k, "c:"):
		return kindComparative
	case strings.HasPrefix(k, "t:"):
		return kindTime
	case strings.HasPrefix(k, "s:"):
		return kindScope
	case strings.HasPrefix(k, "u:"):
		return kindUnit
	case strings.HasPrefix(k, "#") || (k != "" && k[0] >= '0' && k[0] <= '9'):
		return kindNumber
	}
	return kindWord
}

// stem strips English inflection (plural, -ed, -ing, a final e, a doubled
// final consonant) so install/installed/installing compare equal. It does
// not strip -er/-est: those are comparatives, or other words (printer).
func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	n := len(w)
	switch {
	case n > 4 && (strings.HasSuffix(w, "ies") || strings.HasSuffix(w, "ied")):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "es") && hasAnySuffix(w[:n-2], "s", "x", "z", "ch", "sh"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !hasAnySuffix(w, "ss", "us", "is"):
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ing") && hasVowel(w[:n-3]):
		w = w[:n-3]
	case n > 3 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed") && hasVowel(w[:n-2]):
		w = w[:n-2]
	}
	if n := len(w); n >= 3 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiou", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

func hasAnySuffix(w string, sufs ...string) bool {
	for _, s := range sufs {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}

func hasVowel(w string) bool { return strings.ContainsAny(w, "aeiouy") }
