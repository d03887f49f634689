package ingest

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
)

// decodedText is a text file's bytes as UTF-8, with the charset they were
// read in ("" when the file was already plain UTF-8, which is stored as it
// is) and a remark for the ingest report when the charset was not plain
// UTF-8.
type decodedText struct {
	text    string
	charset string
	note    string
}

// byteOrderMarks of the encodings that are not UTF-8, in the order they must
// be tested: UTF-32LE's mark starts with UTF-16LE's.
var byteOrderMarks = []struct {
	mark []byte
	name string
	enc  encoding.Encoding
}{
	{[]byte{0xFF, 0xFE, 0, 0}, "UTF-32LE", utf32.UTF32(utf32.LittleEndian, utf32.IgnoreBOM)},
	{[]byte{0, 0, 0xFE, 0xFF}, "UTF-32BE", utf32.UTF32(utf32.BigEndian, utf32.IgnoreBOM)},
	{[]byte{0xFF, 0xFE}, "UTF-16LE", unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)},
	{[]byte{0xFE, 0xFF}, "UTF-16BE", unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM)},
}

// hasByteOrderMark reports whether data starts with a Unicode byte-order
// mark (whose UTF-16/32 text contains NUL bytes yet is text).
func hasByteOrderMark(data []byte) bool {
	for _, b := range byteOrderMarks {
		if bytes.HasPrefix(data, b.mark) {
			return true
		}
	}
	return false
}

// decodeText turns a text file's bytes into UTF-8. A UTF-16/32 byte-order
// mark decides first; valid UTF-8 (with or without its mark) is kept
// unchanged (so no UTF-8 file is ever
// misdetected); anything else is decoded in the legacy charset a detector
// finds most likely (EUC-KR/CP949, Windows-1252, KOI8-R, Shift_JIS, …).
// Offsets of the document refer to the decoded text. A NUL byte outside
// UTF-16/32 is an error: the file is binary.
func decodeText(data []byte) (decodedText, error) {
	for _, b := range byteOrderMarks {
		if !bytes.HasPrefix(data, b.mark) {
			continue
		}
		out, err := b.enc.NewDecoder().Bytes(data[len(b.mark):])
		if err != nil {
			return decodedText{}, fmt.Errorf("the file starts with a %s byte-order mark but is not valid %s (%v); save it as UTF-8 and scan again", b.name, b.name, err)
		}
		text := strings.ToValidUTF8(string(out), "\uFFFD")
		if i := strings.IndexByte(text, 0); i >= 0 {
			return decodedText{}, fmt.Errorf("binary file (NUL character in its %s text); only text files can be indexed", b.name)
		}
		return decodedText{text: text, charset: b.name, note: "decoded as " + b.name + " (byte-order mark)"}, nil
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		if d, ok := charset.Unicode(data); ok {
			return decodeAs(data, d.Name, d.Encoding)
		}
		return decodedText{}, fmt.Errorf("binary file (NUL byte at byte %d); only text files can be indexed", i)
	}
	if utf8.Valid(data) {
		if d, ok := charset.SevenBit(data); ok {
			return decodeAs(data, d.Name, d.Encoding)
		}
		return decodedText{text: string(data)}, nil
	}
	name, enc := detectCharset(data)
	if enc == nil {
		return decodedText{}, fmt.Errorf("not valid UTF-8 at byte %d and its charset could not be recognised; save the file as UTF-8 and scan again", invalidUTF8At(data))
	}
	return decodeAs(data, name, enc)
}

// decodeAs decodes data in the charset name that detection found.
func decodeAs(data []byte, name string, enc encoding.Encoding) (decodedText, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return decodedText{}, fmt.Errorf("not valid UTF-8, and decoding it as %s failed (%v); save the file as UTF-8 and scan again", name, err)
	}
	text := strings.ToValidUTF8(string(out), "\uFFFD")
	if strings.IndexByte(text, 0) >= 0 {
		return decodedText{}, fmt.Errorf("binary file (NUL character after decoding as %s); only text files can be indexed", name)
	}
	return decodedText{text: text, charset: name, note: fmt.Sprintf("detected and decoded as %s (if the text looks wrong, save the file as UTF-8 and scan again)", name)}, nil
}

// detectCharset names the legacy charset data is most likely in, with its
// decoder, or returns a nil encoding when no candidate is likely enough
// (package charset). Unicode is not a candidate: the caller has ruled it
// out.
func detectCharset(data []byte) (string, encoding.Encoding) {
	if d, ok := charset.Detect(data); ok {
		return d.Name, d.Encoding
	}
	return "", nil
}
