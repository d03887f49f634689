package ingest

import (
	"bytes"
	"fmt"
	"strings"
	gounicode "unicode"
	"unicode/utf8"

	"github.com/gogs/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/simplifiedchinese"
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
		return decodedText{}, fmt.Errorf("binary file (NUL byte at byte %d); only text files can be indexed", i)
	}
	if utf8.Valid(data) {
		return decodedText{text: string(data)}, nil
	}
	name, enc := detectCharset(data, false)
	if enc == nil {
		return decodedText{}, fmt.Errorf("not valid UTF-8 at byte %d and its charset could not be recognised; save the file as UTF-8 and scan again", invalidUTF8At(data))
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return decodedText{}, fmt.Errorf("not valid UTF-8, and decoding it as %s failed (%v); save the file as UTF-8 and scan again", name, err)
	}
	text := strings.ToValidUTF8(string(out), "\uFFFD")
	if strings.IndexByte(text, 0) >= 0 {
		return decodedText{}, fmt.Errorf("binary file (NUL character after decoding as %s); only text files can be indexed", name)
	}
	return decodedText{text: text, charset: name, note: fmt.Sprintf("not valid UTF-8; detected and decoded as %s (if the text looks wrong, save the file as UTF-8 and scan again)", name)}, nil
}

// minCharsetConfidence is the detector confidence (0-100) a guess needs to
// be used: below it, short or mostly-ASCII files with a stray byte are
// reported instead of silently decoded wrong.
const minCharsetConfidence = 50

// detectCharset names the legacy charset data is most likely in, with its
// decoder, or returns a nil encoding when no candidate is likely enough.
// Unicode candidates are passed over: the caller has ruled them out. Korean
// text too short for the statistics is still recognised by its byte
// structure (every non-ASCII byte in an EUC-KR pair).
func detectCharset(data []byte, html bool) (string, encoding.Encoding) {
	det := chardet.NewTextDetector()
	if html {
		det = chardet.NewHtmlDetector()
	}
	results, err := det.DetectAll(data)
	if err != nil {
		results = nil
	}
	for _, r := range results {
		if r.Confidence < minCharsetConfidence {
			break // results come best first
		}
		if strings.HasPrefix(strings.ToUpper(r.Charset), "UTF-") {
			continue
		}
		if enc := legacyEncoding(r.Charset); enc != nil {
			return charsetDisplayName(r.Charset), enc
		}
	}
	if eucKRPairs(data) {
		return charsetDisplayName("EUC-KR"), legacyEncoding("EUC-KR")
	}
	if plausibleWindows1252(data) {
		return "Windows-1252", charmap.Windows1252
	}
	return "", nil
}

// plausibleWindows1252 reports whether data reads as Western European text
// in Windows-1252 even though it is too short for the detector: every
// non-ASCII character is a letter touching an ASCII letter (Köln, café) or
// typographic punctuation (“ ” ‘ ’ – — … €), and no capital follows a
// lower-case letter. A stray byte in ASCII, such as the lead byte of a cut
// UTF-8 sequence ("Ã(", "cafÃ("), does not qualify.
func plausibleWindows1252(data []byte) bool {
	seen := false
	isASCIILetterAt := func(i int) bool { return i >= 0 && i < len(data) && isASCIILetter(data[i]) }
	for i, c := range data {
		if c < 0x80 {
			continue
		}
		seen = true
		switch c {
		case 0x80, 0x85, 0x91, 0x92, 0x93, 0x94, 0x96, 0x97:
			continue
		}
		r := charmap.Windows1252.DecodeByte(c)
		if !gounicode.IsLetter(r) || !isASCIILetterAt(i-1) && !isASCIILetterAt(i+1) {
			return false
		}
		if gounicode.IsUpper(r) && i > 0 && data[i-1] >= 'a' && data[i-1] <= 'z' {
			return false // "cafÃ": a capital inside a lower-case word is mojibake
		}
	}
	return seen
}

// eucKRPairs reports whether data has at least two non-ASCII characters and
// every non-ASCII byte belongs to an EUC-KR two-byte character (both bytes
// 0xA1-0xFE), which Latin and Cyrillic text almost never does.
func eucKRPairs(data []byte) bool {
	pairs := 0
	for i := 0; i < len(data); i++ {
		if data[i] < 0x80 {
			continue
		}
		if i+1 >= len(data) || data[i] < 0xA1 || data[i] == 0xFF || data[i+1] < 0xA1 || data[i+1] == 0xFF {
			return false
		}
		pairs++
		i++
	}
	return pairs >= 2
}

// legacyEncoding maps a detector's charset name to a decoder. EUC-KR decodes
// as CP949 (its superset, what Windows writes), ISO-8859-1 as Windows-1252
// (its superset, as browsers do).
func legacyEncoding(name string) encoding.Encoding {
	if strings.EqualFold(name, "GB-18030") {
		return simplifiedchinese.GB18030
	}
	enc, err := htmlindex.Get(name)
	if err != nil {
		return nil
	}
	return enc
}

func charsetDisplayName(name string) string {
	switch strings.ToUpper(name) {
	case "EUC-KR":
		return "EUC-KR (CP949)"
	case "ISO-8859-1", "WINDOWS-1252":
		return "Windows-1252"
	}
	return name
}
