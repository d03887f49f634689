package facts

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Names are compared by key: letters and digits only, lower-cased, accents
// removed, a possessive dropped. "TechCrunch", "Tech Crunch" and
// "Tech-Crunch" are one name; so are "Beyoncé" and "Beyonce", "Adams's"
// and "Adams".

// NameKey is a word's or a name's key. A plural or possessive s is
// dropped too ("Presidents'" and "President's", "Olympics" and "Olympic"),
// so keys compare the name, not its inflection.
func NameKey(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "'s"), "’s")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range FoldMarks(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	k := b.String()
	if len(k) >= 3 && strings.HasSuffix(k, "s") && !strings.HasSuffix(k, "ss") {
		k = k[:len(k)-1]
	}
	return k
}

// FoldMarks drops the accents of Latin letters ("Rély" → "Rely",
// "Céloron" → "Celoron"), as the full-text index does (remove_diacritics),
// so words compare the way search matches them. Marks on other scripts stay:
// a Japanese voicing mark changes the word.
func FoldMarks(s string) string {
	if isASCII(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	latin := false // the last base character is a Latin letter
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			if !latin {
				b.WriteRune(r)
			}
			continue
		}
		latin = unicode.Is(unicode.Latin, r)
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// NameIndex answers whether a text names something, whatever the case,
// spacing and punctuation it writes the name with.
type NameIndex struct {
	words map[string]bool // keys of the text's words (split at spaces, hyphens, slashes)
	seq   [][]string      // each text's word keys in order
}

// NewNameIndex indexes the names of texts (a passage, its title and
// section headings).
func NewNameIndex(texts ...string) *NameIndex {
	x := &NameIndex{words: map[string]bool{}}
	for _, t := range texts {
		var keys []string
		for _, w := range nameWords(t) {
			if k := NameKey(w); k != "" {
				x.words[k] = true
				keys = append(keys, k)
			}
		}
		x.seq = append(x.seq, keys)
	}
	return x
}

// nameWords splits text into words at spaces and at the punctuation names
// are written with (hyphens, slashes, brackets, commas).
func nameWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("-–—/(),;:\"“”[]", r)
	})
}

// HasWord reports a word of the text with the same key as w, or one
// that differs from it only by a short ending of five letters or more in
// common: a demonym and its country ("Libyan", "Libya"; "Canadian",
// "Canada"; "Canada", "Canadian").
func (x *NameIndex) HasWord(w string) bool {
	k := NameKey(w)
	if k == "" {
		return false
	}
	if x.words[k] {
		return true
	}
	if len(k) < 5 {
		return false
	}
	for i := 5; i < len(k) && len(k)-i <= 3; i++ {
		if x.words[k[:i]] {
			return true
		}
	}
	// A place's name with its last vowel or "-and" ending dropped
	// ("Canada", "Canadian"; "China", "Chinese"; "England", "English").
	stems := []string{k}
	switch {
	case strings.HasSuffix(k, "and"):
		stems = append(stems, k[:len(k)-3])
	case strings.ContainsRune("aeoy", rune(k[len(k)-1])):
		stems = append(stems, k[:len(k)-1])
	}
	for _, stem := range stems {
		for _, end := range demonymEndings {
			if x.words[stem+end] {
				return true
			}
		}
	}
	return false
}

// demonymEndings make a people's or language's name from a place's.
var demonymEndings = []string{"n", "an", "ian", "ese", "ish", "i"}

// HasPhrase reports whether the text writes name's words consecutively
// (or joined into one word, or split: "Tech Crunch" for "TechCrunch").
func (x *NameIndex) HasPhrase(name string) bool {
	var key strings.Builder
	for _, w := range nameWords(name) {
		key.WriteString(NameKey(w))
	}
	return key.Len() == 0 || x.spells(key.String())
}

// spells reports whether some run of the text's consecutive words, or one
// word, has key k written together.
func (x *NameIndex) spells(k string) bool {
	if x.words[k] {
		return true
	}
	for _, seq := range x.seq {
		for i := range seq {
			run := ""
			for j := i; j < len(seq) && len(run) < len(k); j++ {
				run += seq[j]
				if run == k {
					return true
				}
			}
		}
	}
	return false
}

// Has reports whether the text names name: every word of it is a word of
// the text, or its words written together are consecutive words of the
// text or one word ("Tech Crunch" in a text saying "TechCrunch",
// "TechCrunch" in one saying "Tech Crunch").
func (x *NameIndex) Has(name string) bool {
	var key strings.Builder
	all := true
	for _, w := range nameWords(name) {
		k := NameKey(w)
		key.WriteString(k)
		all = all && (k == "" || x.HasWord(w))
	}
	if all {
		return true
	}
	k := key.String()
	return utf8.RuneCountInString(k) >= 4 && x.spells(k)
}
