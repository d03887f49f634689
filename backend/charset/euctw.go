package charset

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"io"
	"sync"
	"unicode/utf8"

	"golang.org/x/text/transform"
)

// EUC-TW writes CNS 11643 plane 1 as two bytes 0xA1–0xFE, and any plane p
// as 0x8E, 0xA0+p and two such bytes. Planes 1 and 2 hold the 13,000
// Hanzi in common use (the same as Big5's); the rarer planes are read as
// U+FFFD.
var EUCTW = decodeOnly{func() transform.Transformer { return pairDecoder{step: eucTWStep} }}

// cnsTableGz holds planes 1 and 2 of CNS 11643 as Unicode, 94×94 runes
// each (uint32, little-endian; 0 unassigned). cns_gen_test.go writes it.
//
//go:embed cns11643.bin.gz
var cnsTableGz []byte

var cnsTable = sync.OnceValue(func() []rune {
	zr, err := gzip.NewReader(bytes.NewReader(cnsTableGz))
	if err != nil {
		panic("charset: CNS 11643 table: " + err.Error())
	}
	raw, err := io.ReadAll(zr)
	if err != nil || len(raw) != 2*94*94*4 {
		panic("charset: CNS 11643 table is damaged")
	}
	out := make([]rune, 2*94*94)
	for i := range out {
		out[i] = rune(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
})

func eucTWStep(src []byte) (rune, int) {
	b := src[0]
	if b < 0x80 {
		return rune(b), 1
	}
	plane, at := 1, 0
	if b == 0x8e {
		if len(src) < 4 {
			return 0, 0
		}
		if src[1] < 0xa1 || src[1] > 0xb0 {
			return utf8.RuneError, 1
		}
		plane, at = int(src[1]-0xa0), 2
	}
	if len(src) < at+2 {
		return 0, 0
	}
	c1, c2 := src[at], src[at+1]
	if c1 < 0xa1 || c1 > 0xfe || c2 < 0xa1 || c2 > 0xfe {
		return utf8.RuneError, 1
	}
	if plane > 2 {
		return utf8.RuneError, at + 2
	}
	if r := cnsTable()[(plane-1)*94*94+int(c1-0xa1)*94+int(c2-0xa1)]; r != 0 {
		return r, at + 2
	}
	return utf8.RuneError, at + 2
}
