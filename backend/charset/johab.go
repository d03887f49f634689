package charset

import (
	"slices"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/transform"
)

// Johab (KS X 1001 annex 3, Windows code page 1361) writes a Hangul
// syllable as its three jamo, five bits each, and the symbols and Hanja of
// KS X 1001 at positions computed from their EUC-KR ones.
var Johab = decodeOnly{func() transform.Transformer { return pairDecoder{step: johabStep} }}

func johabStep(src []byte) (rune, int) {
	b := src[0]
	if b < 0x80 {
		return rune(b), 1
	}
	if len(src) < 2 {
		return 0, 0
	}
	c := src[1]
	switch {
	case b >= 0x84 && b <= 0xd3:
		if r, ok := johabHangul(uint16(b)<<8 | uint16(c)); ok {
			return r, 2
		}
	case b == 0xda && c >= 0xa1 && c <= 0xd3:
		// KS X 1001's row of jamo: Johab writes them as Hangul (above).
	case (b >= 0xd9 && b <= 0xde || b >= 0xe0 && b <= 0xf9) && (c >= 0x31 && c <= 0x7e || c >= 0x91 && c <= 0xfe):
		// Two Johab rows hold one pair of KS X 1001 rows.
		t1 := 2 * (int(b) - 0xd9) // symbols: KS X 1001 rows 0x21–0x2C
		if b >= 0xe0 {
			t1 = 2*int(b) - 0x197 // Hanja: rows 0x4A–0x7D
		}
		t2 := int(c) - 0x31
		if c >= 0x91 {
			t2 = int(c) - 0x43
		}
		row, col := t1, t2
		if t2 >= 94 {
			row, col = t1+1, t2-94
		}
		if r := ksx1001()[row*94+col]; r != 0 {
			return r, 2
		}
	}
	return utf8.RuneError, 1
}

// Jamo of a Johab syllable's fields, as Hangul Compatibility Jamo for the
// letters written alone.
var (
	johabInitials = []rune("ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ")
	johabFinals   = []rune("ㄱㄲㄳㄴㄵㄶㄷㄹㄺㄻㄼㄽㄾㄿㅀㅁㅂㅄㅅㅆㅇㅈㅊㅋㅌㅍㅎ")
)

// johabHangul decodes a 16-bit Johab Hangul code: 1, then five bits each
// for the initial consonant, the vowel and the final consonant, where the
// values 1, 2 and 1 mean none.
func johabHangul(c uint16) (rune, bool) {
	i, m, f := int(c>>10)&31, int(c>>5)&31, int(c)&31
	l := -1 // fill
	switch {
	case i == 1:
	case i >= 2 && i <= 20:
		l = i - 2
	default:
		return 0, false
	}
	v := -1
	switch {
	case m == 2:
	case m >= 3 && m <= 7:
		v = m - 3
	case m >= 10 && m <= 15:
		v = m - 5
	case m >= 18 && m <= 23:
		v = m - 7
	case m >= 26 && m <= 29:
		v = m - 9
	default:
		return 0, false
	}
	t := 0
	switch {
	case f == 1:
	case f >= 2 && f <= 17:
		t = f - 1
	case f >= 19 && f <= 29:
		t = f - 2
	default:
		return 0, false
	}
	switch {
	case l >= 0 && v >= 0:
		return rune(0xac00 + (l*21+v)*28 + t), true
	case l >= 0 && t == 0:
		return johabInitials[l], true
	case l < 0 && v >= 0 && t == 0:
		return rune(0x314f + v), true
	case l < 0 && v < 0 && t > 0 && !slices.Contains(johabInitials, johabFinals[t-1]):
		// A lone final is written so only when it cannot be an initial:
		// the clusters ㄳ ㄵ … ㅄ.
		return johabFinals[t-1], true
	}
	return 0, false
}

// ksx1001 maps the 94×94 KS X 1001 positions to runes (0: unassigned),
// read once from x/text's EUC-KR decoder.
var ksx1001 = sync.OnceValue(func() []rune {
	table := make([]rune, 94*94)
	dec := korean.EUCKR.NewDecoder()
	for row := range 94 {
		for col := range 94 {
			out, err := dec.Bytes([]byte{byte(0xa1 + row), byte(0xa1 + col)})
			if r, n := utf8.DecodeRune(out); err == nil && n == len(out) && r != utf8.RuneError {
				table[row*94+col] = r
			}
		}
	}
	return table
})
