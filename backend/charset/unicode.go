package charset

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	xunicode "golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// UTF-16 and UTF-32 without a byte-order mark (Windows' "Unicode" text,
// files written by programs): every ASCII character, if only the spaces
// between words, puts a NUL byte beside it (UTF-16) or three (UTF-32), at
// the same place in each unit, and almost never at the other. Text
// without a single one (UTF-16 Chinese without spaces, say) is not
// recognised: its bytes look like any two-byte charset's.

// Unicode recognises UTF-16 or UTF-32 text written without a byte-order
// mark in data (or its first part) by where its NUL bytes fall, and checks
// that it reads as text: no character of it a control character but tab,
// line breaks and form feed, none invalid.
func Unicode(data []byte) (Detection, bool) {
	sample := data[:min(len(data), sampleBytes)]
	var zeros [4]int // NUL bytes by offset in a 4-byte unit
	for i, c := range sample {
		if c == 0 {
			zeros[i%4]++
		}
	}
	units4, units2 := len(sample)/4, len(sample)/2
	even, odd := zeros[0]+zeros[2], zeros[1]+zeros[3]
	var name string
	var enc encoding.Encoding
	switch {
	case units4 < 4:
		return Detection{}, false
	case zeros[3] >= units4*9/10 && zeros[2] >= units4/5 && zeros[0] < units4/10:
		name, enc = "UTF-32LE", utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)
	case zeros[0] >= units4*9/10 && zeros[1] >= units4/5 && zeros[3] < units4/10:
		name, enc = "UTF-32BE", utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)
	case odd*20 >= units2 && even*20 <= odd && (odd*5 >= units2 || oneScript(sample, 1)):
		name, enc = "UTF-16LE", xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM)
	case even*20 >= units2 && odd*20 <= even && (even*5 >= units2 || oneScript(sample, 0)):
		name, enc = "UTF-16BE", xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM)
	default:
		return Detection{}, false
	}
	unit := 2
	if name[:6] == "UTF-32" {
		unit = 4
	}
	text, err := enc.NewDecoder().Bytes(sample[:len(sample)/unit*unit])
	if err != nil || !readsAsText(text) {
		return Detection{}, false
	}
	return Detection{Name: name + " (no byte-order mark)", Encoding: enc}, true
}

// oneScript reports, for UTF-16 with few ASCII characters (a fifth of its
// units or less: Russian or Greek between spaces), whether its other
// characters keep to a few 256-character blocks, as an alphabet's do
// (Cyrillic is U+04xx): at least four fifths of them in the three commonest
// blocks. high is the offset of the high byte in a unit. ASCII text with a
// stray NUL read as UTF-16 spreads over dozens of blocks.
func oneScript(sample []byte, high int) bool {
	var blocks [256]int
	n := 0
	for i := 0; i+1 < len(sample); i += 2 {
		if h := sample[i+high]; h != 0 {
			blocks[h]++
			n++
		}
	}
	slices.Sort(blocks[:])
	return n > 0 && (blocks[255]+blocks[254]+blocks[253])*5 >= n*4
}

// readsAsText reports whether decoded UTF-8 holds no invalid character
// and no control character but tab, line breaks and form feed.
func readsAsText(text []byte) bool {
	for len(text) > 0 {
		r, n := utf8.DecodeRune(text)
		text = text[n:]
		switch {
		case r == '\t' || r == '\n' || r == '\r' || r == '\f':
		case r == utf8.RuneError, unicode.IsControl(r):
			return false
		}
	}
	return true
}
