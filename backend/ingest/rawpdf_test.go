package ingest

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
)

// Hand-built PDFs for the safety tests: the generators used elsewhere in
// the tests write only well-formed files.

// rawObject is one indirect object: its dictionary or value, and stream
// data when it is a stream (the caller puts /Length and /Filter in dict).
type rawObject struct {
	dict   string
	stream []byte
}

// rawPDF writes objects numbered from 1 with a classic cross-reference
// table; trailer holds the trailer dictionary's entries.
func rawPDF(objects []rawObject, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offsets := writeObjects(&b, objects)
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, trailer, xref)
	return b.Bytes()
}

func writeObjects(b *bytes.Buffer, objects []rawObject) []int {
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(b, "%d 0 obj\n%s\n", i+1, o.dict)
		if o.stream != nil {
			b.WriteString("stream\n")
			b.Write(o.stream)
			b.WriteString("\nendstream\n")
		}
		b.WriteString("endobj\n")
	}
	return offsets
}

// rawPDFWithObjectStream writes objects numbered from 1, then object
// inStream as the only member of an object stream (whose dictionary and
// already-encoded data are given), and a cross-reference stream that says
// so. The trailer entries go into the cross-reference stream's dictionary.
func rawPDFWithObjectStream(objects []rawObject, objStmDict string, objStmData []byte, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	all := append(slicesClone(objects), rawObject{dict: objStmDict, stream: objStmData})
	offsets := writeObjects(&b, all)
	stm := len(all)       // the object stream's number
	member := stm + 1     // the object stored in it
	xrefNum := member + 1 // the cross-reference stream itself
	xrefOff := b.Len()
	var entries bytes.Buffer
	entry := func(kind byte, f2 uint32, f3 uint16) {
		entries.WriteByte(kind)
		binary.Write(&entries, binary.BigEndian, f2)
		binary.Write(&entries, binary.BigEndian, f3)
	}
	entry(0, 0, 65535)
	for _, off := range offsets {
		entry(1, uint32(off), 0)
	}
	entry(2, uint32(stm), 0)
	entry(1, uint32(xrefOff), 0)
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Length %d %s >>\nstream\n", xrefNum, xrefNum+1, entries.Len(), trailer)
	b.Write(entries.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefOff)
	return b.Bytes()
}

func slicesClone(o []rawObject) []rawObject { return append([]rawObject(nil), o...) }

// onePage is a catalog (1), page tree (2) and one page (3) whose content
// stream is object 4.
func onePage(content rawObject) []rawObject {
	return []rawObject{
		{dict: "<< /Type /Catalog /Pages 2 0 R >>"},
		{dict: "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"},
		{dict: "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>"},
		content,
	}
}

func plainContent(text string) rawObject {
	data := []byte("BT /F1 12 Tf 72 720 Td (" + text + ") Tj ET")
	return rawObject{dict: fmt.Sprintf("<< /Length %d >>", len(data)), stream: data}
}

// zlibRun returns a zlib stream of prefix followed by n bytes 'a', built by
// hand (fixed Huffman codes: one literal, then back-references of length
// 258 at distance 1), so gigabytes cost megabytes and milliseconds.
func zlibRun(prefix string, n int64) []byte {
	var w bitWriter
	w.out = append(w.out, 0x78, 0x01)
	w.bits(1, 1) // final block
	w.bits(1, 2) // fixed Huffman codes
	lit := func(c byte) {
		if c < 144 {
			w.code(0x30+uint32(c), 8)
		} else {
			w.code(0x190+uint32(c)-144, 9)
		}
	}
	for i := 0; i < len(prefix); i++ {
		lit(prefix[i])
	}
	left := n
	if left > 0 {
		lit('a')
		left--
	}
	for ; left >= 258; left -= 258 {
		w.code(0xC5, 8) // length 258 (code 285)
		w.code(0, 5)    // distance 1
	}
	for ; left > 0; left-- {
		lit('a')
	}
	w.code(0, 7) // end of block
	w.flush()
	// Adler-32 of prefix + n×'a', in closed form for the run.
	const mod = 65521
	a, b := uint64(1), uint64(0)
	for i := 0; i < len(prefix); i++ {
		a = (a + uint64(prefix[i])) % mod
		b = (b + a) % mod
	}
	m := uint64(n)
	tri := (m / 2 % mod) * ((m + 1) % mod) % mod // m(m+1)/2 without overflow
	if m%2 == 1 {
		tri = (m % mod) * ((m + 1) / 2 % mod) % mod
	}
	b = (b + (m%mod)*a%mod + 'a'*tri) % mod
	a = (a + (m%mod)*'a') % mod
	return binary.BigEndian.AppendUint32(w.out, uint32(b<<16|a))
}

type bitWriter struct {
	out  []byte
	acc  uint64
	nacc uint
}

// bits writes the low n bits of v, least significant first (header fields).
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nacc
	w.nacc += n
	for w.nacc >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nacc -= 8
	}
}

// code writes a Huffman code of n bits, most significant bit first.
func (w *bitWriter) code(c uint32, n uint) {
	var rev uint64
	for i := uint(0); i < n; i++ {
		rev |= uint64((c>>i)&1) << (n - 1 - i)
	}
	w.bits(rev, n)
}

func (w *bitWriter) flush() {
	if w.nacc > 0 {
		w.out = append(w.out, byte(w.acc))
		w.acc, w.nacc = 0, 0
	}
}

// deflateAgain zlib-compresses data: a second filter layer multiplies the
// expansion, so a few kilobytes decode to gigabytes.
func deflateAgain(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombStream is a stream object whose data decodes (through two Flate
// layers) to prefix followed by n bytes 'a'.
func bombStream(t testing.TB, extraDict, prefix string, n int64) rawObject {
	data := deflateAgain(t, zlibRun(prefix, n))
	return rawObject{
		dict:   fmt.Sprintf("<< %s /Filter [/FlateDecode /FlateDecode] /Length %d >>", extraDict, len(data)),
		stream: data,
	}
}

func TestZlibRunDecodes(t *testing.T) {
	for _, n := range []int64{0, 1, 257, 258, 259, 100000} {
		zr, err := zlib.NewReader(bytes.NewReader(zlibRun("x(", n)))
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := got.ReadFrom(zr); err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if want := "x(" + strings.Repeat("a", int(n)); got.String() != want {
			t.Fatalf("n=%d: decoded %d bytes, want %d", n, got.Len(), len(want))
		}
	}
}
