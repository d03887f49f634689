package charset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Language models: how often each letter, and each letter after another,
// occurs in a language's text. A candidate charset's reading of the bytes
// is scored by how likely its letters are in the languages written in that
// charset; the wrong charset reads them as letters in an order no language
// has. The models were counted on sentences of the Universal Dependencies
// treebanks (langmodels_gen_test.go says how), not on any text the
// detector is measured on.

//go:embed langmodels.txt.gz
var langModelsGz []byte

// boundary stands for anything between words: spaces, digits, punctuation.
const boundary = ' '

// model is one language's letter statistics, as costs (-ln p, in tenths).
type model struct {
	lang   string
	cjk    bool                // scored on single letters alone (its pairs are too many to keep)
	single map[rune]float32    // cost of a symbol
	pair   map[[2]rune]float32 // cost of b after a, the pair's and b's probability mixed (eventCost)
	floor  float32             // cost of a symbol the language never showed
}

var models = sync.OnceValue(func() map[string]*model {
	out := map[string]*model{}
	zr, err := gzip.NewReader(bytes.NewReader(langModelsGz))
	if err != nil {
		panic("charset: language models: " + err.Error())
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		lang, kind := fields[0], fields[1]
		m := out[lang]
		if m == nil {
			m = &model{lang: lang, single: map[rune]float32{}, pair: map[[2]rune]float32{}, floor: 160}
			out[lang] = m
		}
		for _, f := range fields[2:] {
			sym, costText, ok := strings.Cut(f, ":")
			cost, err := strconv.Atoi(costText)
			if !ok || err != nil {
				continue
			}
			r := []rune(sym)
			switch {
			case kind == "floor":
				m.floor = float32(cost)
			case kind == "1" && len(r) == 1:
				m.single[r[0]] = float32(cost)
			case kind == "2" && len(r) == 2:
				m.pair[[2]rune{r[0], r[1]}] = float32(cost) // mixed below, once the letters are read
			}
		}
		if kind == "cjk" {
			m.cjk = true
		}
	}
	for _, m := range out {
		for p, c := range m.pair {
			m.pair[p] = mix(c, m.singleCost(p[1]))
		}
	}
	return out
})

// mix is the cost of a pair whose own cost is pair and whose second
// letter's is single: -10 ln(pairWeight·p(pair) + (1-pairWeight)·p(letter)).
func mix(pair, single float32) float32 {
	p := pairWeight*math.Exp(-float64(pair)/10) + (1-pairWeight)*math.Exp(-float64(single)/10)
	return float32(-10 * math.Log(p))
}

func (m *model) singleCost(sym rune) float32 {
	if c, ok := m.single[sym]; ok {
		return c
	}
	return m.floor
}

// symbol maps a character to what the models count: letters lower-cased;
// spaces, digits and ASCII punctuation the boundary between words; any
// other character (punctuation and symbols beyond ASCII: « » — € №, or
// the box-drawing characters a wrong code page makes of letters) itself.
func symbol(r rune) rune {
	switch {
	case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r):
		return unicode.ToLower(r)
	case r < utf8.RuneSelf || unicode.IsSpace(r) || unicode.IsDigit(r):
		return boundary
	}
	return r
}

// Costs of characters no text has, in the same tenths of -ln p: a byte a
// charset cannot read (U+FFFD), and control characters (what ISO charsets
// make of bytes 0x80–0x9F, never written in text).
const (
	invalidCost = 200
	controlCost = 150
)

// pairWeight is the share of a pair's own probability in its cost, the
// rest going to the letter's (interpolation, so an unseen pair of common
// letters is not ruled out).
const pairWeight = 0.9

// events are what a reading is scored on: each character beyond ASCII
// with the one before it, and each ASCII character after one beyond it
// (pairs of ASCII characters read alike in every charset and are left
// out); characters no text has (invalid, control) at a fixed cost.
type events struct {
	pairs [][2]rune
	fixed float64 // summed cost of the characters no text has
	n     int     // pairs and fixed-cost characters
}

func eventsOf(text string) events {
	var ev events
	prev := boundary
	for _, r := range text {
		switch {
		case r == utf8.RuneError:
			ev.fixed += invalidCost
			ev.n++
			prev = boundary
			continue
		case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7f && r < 0xa0, unicode.Is(unicode.Co, r):
			ev.fixed += controlCost
			ev.n++
			prev = boundary
			continue
		}
		sym := symbol(r)
		if sym == boundary && prev == boundary {
			continue
		}
		if sym >= utf8.RuneSelf || prev >= utf8.RuneSelf {
			ev.pairs = append(ev.pairs, [2]rune{prev, sym})
			ev.n++
		}
		prev = sym
	}
	return ev
}

// cost is the summed cost of ev in m's language.
func (m *model) cost(ev events) float64 {
	c := ev.fixed
	for _, p := range ev.pairs {
		c += m.eventCost(p[0], p[1])
	}
	return c
}

// eventCost is the cost of sym after prev: the mixed cost of the pair
// when the language has it, else the letter's own probability at the
// weight left to it.
func (m *model) eventCost(prev, sym rune) float64 {
	if m.cjk {
		return float64(m.singleCost(sym))
	}
	if c, ok := m.pair[[2]rune{prev, sym}]; ok {
		return float64(c)
	}
	return float64(m.singleCost(sym)) + unseenPairCost
}

// unseenPairCost is what a pair the language never showed adds to its
// second letter's cost: -10 ln(1 - pairWeight).
var unseenPairCost = -10 * math.Log(1-pairWeight)
