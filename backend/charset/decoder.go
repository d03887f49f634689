package charset

import (
	"errors"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// decodeOnly is an encoding.Encoding that can only be read: Footnote
// stores text as UTF-8 and never writes these charsets.
type decodeOnly struct {
	decoder func() transform.Transformer
}

func (d decodeOnly) NewDecoder() *encoding.Decoder {
	return &encoding.Decoder{Transformer: d.decoder()}
}
func (d decodeOnly) NewEncoder() *encoding.Encoder {
	return &encoding.Encoder{Transformer: refuseEncoding{}}
}

var errEncodeOnly = errors.New("charset: this charset is only read, never written")

type refuseEncoding struct{ transform.NopResetter }

func (refuseEncoding) Transform(_, _ []byte, _ bool) (int, int, error) { return 0, 0, errEncodeOnly }

// pairDecoder decodes a charset of ASCII bytes and two-byte (or, after a
// prefix, longer) characters: step reads one character at the start of
// src and returns the rune and how many bytes it took, or n 0 when src
// ends inside the character.
type pairDecoder struct {
	transform.NopResetter
	step func(src []byte) (r rune, n int)
}

func (d pairDecoder) Transform(dst, src []byte, atEOF bool) (nDst, nSrc int, err error) {
	for nSrc < len(src) {
		r, n := d.step(src[nSrc:])
		if n == 0 {
			if !atEOF {
				return nDst, nSrc, transform.ErrShortSrc
			}
			r, n = utf8.RuneError, len(src)-nSrc
		}
		if len(dst)-nDst < utf8.RuneLen(r) {
			return nDst, nSrc, transform.ErrShortDst
		}
		nDst += utf8.EncodeRune(dst[nDst:], r)
		nSrc += n
	}
	return nDst, nSrc, nil
}
