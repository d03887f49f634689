package charset

import (
	"bytes"

	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/transform"
)

// ISO-2022-JP and ISO-2022-KR are 7-bit: their text is valid ASCII, and
// so valid UTF-8, with escape sequences switching in the Japanese or
// Korean character set. Read as it is, such a file is its escape
// sequences; it is recognised by them.

// SevenBit recognises ISO-2022-JP or ISO-2022-KR text by the escape
// sequences that switch their character sets.
func SevenBit(data []byte) (Detection, bool) {
	if bytes.IndexByte(data, 0x1b) < 0 {
		return Detection{}, false
	}
	switch {
	case bytes.Contains(data, []byte("\x1b$)C")):
		return Detection{Name: "ISO-2022-KR", Encoding: ISO2022KR}, true
	case bytes.Contains(data, []byte("\x1b$B")) || bytes.Contains(data, []byte("\x1b$@")) || bytes.Contains(data, []byte("\x1b(J")) ||
		bytes.Contains(data, []byte("\x1b(I")):
		return Detection{Name: "ISO-2022-JP", Encoding: japanese.ISO2022JP}, true
	}
	return Detection{}, false
}

// ISO2022KR (RFC 1557) declares KS X 1001 once with ESC $ ) C, then
// shifts into it with SO and back to ASCII with SI: in between, pairs of
// bytes 0x21–0x7E are its characters, EUC-KR's with the high bit clear.
var ISO2022KR = decodeOnly{func() transform.Transformer {
	return transform.Chain(&iso2022KRToEUCKR{}, korean.EUCKR.NewDecoder())
}}

// iso2022KRToEUCKR rewrites ISO-2022-KR as EUC-KR: it drops the
// declaration, SO and SI, and sets the high bit of shifted bytes.
type iso2022KRToEUCKR struct{ shifted bool }

func (t *iso2022KRToEUCKR) Reset() { t.shifted = false }

func (t *iso2022KRToEUCKR) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		b := src[nSrc]
		switch {
		case b == 0x1b:
			if len(src)-nSrc < 4 && !atEOF {
				return nDst, nSrc, transform.ErrShortSrc
			}
			if bytes.HasPrefix(src[nSrc:], []byte("\x1b$)C")) {
				nSrc += 4
				continue
			}
		case b == 0x0e:
			t.shifted = true
			nSrc++
			continue
		case b == 0x0f:
			t.shifted = false
			nSrc++
			continue
		case b == '\n' || b == '\r':
			t.shifted = false // a line starts in ASCII
		case t.shifted && b >= 0x21 && b <= 0x7e:
			b |= 0x80
		}
		if nDst >= len(dst) {
			return nDst, nSrc, transform.ErrShortDst
		}
		dst[nDst] = b
		nDst++
		nSrc++
	}
	return nDst, nSrc, nil
}
