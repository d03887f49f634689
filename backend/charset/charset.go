// Package charset reads text saved in a charset other than UTF-8: it names
// the charset bytes are most likely in and decodes them. It knows the
// single-byte code pages people still have files in (Cyrillic, Greek,
// Hebrew, Arabic, Thai, Central and Western European, Turkish), the
// multi-byte East Asian ones (EUC-KR and Johab, Big5 and EUC-TW, GB18030,
// Shift_JIS and EUC-JP), the 7-bit ISO-2022-JP and ISO-2022-KR, and UTF-16
// and UTF-32 written without a byte-order mark. Decoders golang.org/x/text
// lacks (Johab, EUC-TW, ISO-2022-KR) are here.
//
// Detection is statistical: each candidate charset's reading of the bytes
// is scored by letter and letter-pair frequencies of the languages written
// in it (model.go), and the likeliest reading wins when it is likely
// enough to be text.
package charset

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
)

// Detection is a charset found for some bytes.
type Detection struct {
	Name     string // as people know it, e.g. "Windows-1251", "EUC-KR (CP949)"
	Encoding encoding.Encoding
}

// candidate is a charset and the languages written in it.
type candidate struct {
	name  string
	enc   encoding.Encoding
	langs []string
}

var (
	cyrillic = []string{"ru", "bg", "uk"}
	central  = []string{"cs", "sk", "pl", "hu", "hr", "sl", "ro", "sr"}
	western  = []string{"en", "fr", "de", "es", "pt", "it", "nl", "sv", "da", "fi", "is", "nb"}
)

// candidates in order of preference: when two read the bytes alike (they
// differ only in bytes the text does not use), the first is named.
var candidates = []candidate{
	{"Windows-1252", charmap.Windows1252, western},
	{"Windows-1250", charmap.Windows1250, central},
	{"ISO-8859-2", charmap.ISO8859_2, central},
	{"Windows-1251", charmap.Windows1251, cyrillic},
	{"KOI8-R", charmap.KOI8R, cyrillic},
	{"IBM866", charmap.CodePage866, cyrillic},
	{"MacCyrillic", charmap.MacintoshCyrillic, cyrillic},
	{"IBM855", charmap.CodePage855, cyrillic},
	{"ISO-8859-5", charmap.ISO8859_5, cyrillic},
	{"ISO-8859-7", charmap.ISO8859_7, []string{"el"}},
	{"Windows-1253", charmap.Windows1253, []string{"el"}},
	{"Windows-1255", charmap.Windows1255, []string{"he"}},
	{"ISO-8859-8", charmap.ISO8859_8, []string{"he"}},
	{"Windows-1256", charmap.Windows1256, []string{"ar"}},
	{"ISO-8859-6", charmap.ISO8859_6, []string{"ar"}},
	{"TIS-620 (Windows-874)", charmap.Windows874, []string{"th"}},
	{"Windows-1254", charmap.Windows1254, []string{"tr"}},
	{"MacRoman", charmap.Macintosh, western},
	{"EUC-KR (CP949)", korean.EUCKR, []string{"ko"}},
	{"Johab", Johab, []string{"ko"}},
	{"Big5", traditionalchinese.Big5, []string{"zh-hant"}},
	{"EUC-TW", EUCTW, []string{"zh-hant"}},
	{"GB18030", simplifiedchinese.GB18030, []string{"zh-hans"}},
	{"Shift_JIS", japanese.ShiftJIS, []string{"ja"}},
	{"EUC-JP", japanese.EUCJP, []string{"ja"}},
}

// sampleBytes is how much of a file detection reads: enough text for the
// statistics, without decoding a large file two dozen times.
const sampleBytes = 32 << 10

// maxByteCost is the cost (tenths of -ln p) per byte beyond ASCII above
// which even the best reading is not taken for text. Text in its own
// charset costs 20–45 a byte in an alphabet of its own, or in Chinese,
// Japanese or Korean, and up to about 100 in a Latin alphabet, whose few
// letters beyond ASCII are each scored with both neighbours. Set on the
// tune split of the test corpus (TestCharsetCorpus in package ingest).
const maxByteCost = 120

// minEvidence is how many bytes beyond ASCII the statistics need. With
// fewer, a stray byte in ASCII text (a cut UTF-8 sequence, "caf\xc3(")
// reads as well as a word does, so a short reading is taken only when its
// structure shows text (shortReadingIsText).
const minEvidence = 12

// Detect names the charset data (not valid UTF-8) is most likely in, or
// returns false when no reading is likely enough to be text. It does not
// consider Unicode (see Unicode and SevenBit).
func Detect(data []byte) (Detection, bool) {
	sample := cutSample(data)
	high := 0
	for _, b := range sample {
		if b >= utf8.RuneSelf {
			high++
		}
	}
	readings := rank(sample)
	if high == 0 || len(readings) == 0 {
		return Detection{}, false
	}
	if high >= minEvidence {
		if r := readings[0]; r.cost/float64(high) <= maxByteCost {
			return r.detection(readings), true
		}
		return Detection{}, false
	}
	for _, r := range readings {
		if shortReadingIsText(r) {
			return r.detection(readings), true
		}
	}
	return Detection{}, false
}

// reading is a candidate charset's decoding of the sample and its cost in
// the likeliest of its languages.
type reading struct {
	c     *candidate
	order int // the candidate's place in candidates
	text  string
	cost  float64
}

// rank reads sample in every candidate charset, cheapest first (a tie
// keeps the order of preference).
func rank(sample []byte) []reading {
	var out []reading
	for i := range candidates {
		c := &candidates[i]
		text, err := c.enc.NewDecoder().String(string(sample))
		if err != nil {
			continue
		}
		ev := eventsOf(text)
		if ev.n == 0 {
			continue
		}
		r := reading{c: c, order: i, text: text, cost: math.Inf(1)}
		for _, lang := range c.langs {
			if m := models()[lang]; m != nil {
				r.cost = min(r.cost, m.cost(ev))
			}
		}
		if !math.IsInf(r.cost, 1) {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b reading) int { return cmp.Compare(a.cost, b.cost) })
	return out
}

// detection names r by the most preferred charset that reads the sample
// alike (Windows-1252 rather than Windows-1250 for English with curly
// quotes, which both read the same).
func (r reading) detection(all []reading) Detection {
	best := r
	for _, o := range all {
		if o.order < best.order && o.text == r.text {
			best = o
		}
	}
	return Detection{Name: best.c.name, Encoding: best.c.enc}
}

// latinCharsets are the candidates whose letters beyond ASCII are accents
// on Latin ones.
var latinCharsets = []string{"Windows-1252", "Windows-1250", "ISO-8859-2", "Windows-1254", "MacRoman"}

// shortReadingIsText reports whether a reading with too few bytes beyond
// ASCII for the statistics still shows itself text by its structure: in a
// Latin charset, every character beyond ASCII a letter touching an ASCII
// letter (Köln, café), a word of one such letter (à) or typographic
// punctuation (“ ” ‘ ’ – — … €), and no capital after
// a small letter ("cafÃ" is a cut UTF-8 "é"); in a two-byte charset, at
// least two characters, every byte beyond ASCII part of one.
func shortReadingIsText(r reading) bool {
	switch {
	case slices.Contains(latinCharsets, r.c.name):
		return latinWords(r.text)
	case r.c.name == "EUC-KR (CP949)" || r.c.name == "Big5" || r.c.name == "GB18030" || r.c.name == "Shift_JIS" || r.c.name == "EUC-JP":
		n := 0
		for _, c := range r.text {
			switch {
			case c == utf8.RuneError || unicode.IsControl(c) && c != '\n' && c != '\t' && c != '\r':
				return false
			case c >= utf8.RuneSelf:
				n++
			}
		}
		return n >= 2
	}
	return false
}

// oneLetterWords are the letters beyond ASCII that are words by themselves
// in the languages of the Latin charsets.
const oneLetterWords = "àèéóùåö"

// latinWords: see shortReadingIsText.
func latinWords(text string) bool {
	rs := []rune(text)
	seen := false
	asciiLetterAt := func(i int) bool {
		return i >= 0 && i < len(rs) && rs[i] < utf8.RuneSelf && unicode.IsLetter(rs[i])
	}
	for i, c := range rs {
		if c < utf8.RuneSelf {
			continue
		}
		seen = true
		if strings.ContainsRune("“”‘’„–—…€«»", c) {
			continue
		}
		if !unicode.IsLetter(c) {
			return false
		}
		// A letter beyond ASCII stands inside a word of ASCII letters, or
		// is a word of one letter (French "à", Italian "è", Swedish "å").
		spaceAt := func(i int) bool { return i < 0 || i >= len(rs) || unicode.IsSpace(rs[i]) }
		if !asciiLetterAt(i-1) && !asciiLetterAt(i+1) && !(strings.ContainsRune(oneLetterWords, c) && spaceAt(i-1) && spaceAt(i+1)) {
			return false
		}
		if unicode.IsUpper(c) && i > 0 && unicode.IsLower(rs[i-1]) {
			return false
		}
	}
	return seen
}

// sampleLeadIn is how much of the ASCII before the first byte beyond
// ASCII a sample keeps when it starts there.
const sampleLeadIn = 1 << 10

// cutSample is sampleBytes of data from shortly before its first byte
// beyond ASCII (a long ASCII head says nothing of the charset: chardet's
// 730 KB MacRoman listing has its one "’" at byte 53,264), cut where a
// character ends in every charset: before a byte below 0x80 (ASCII in all
// of them but the trail bytes of Shift_JIS and Big5, which a cut there
// only loses). Every byte before the first beyond ASCII is ASCII, so the
// sample starts on a character in every charset too.
func cutSample(data []byte) []byte {
	first := 0
	for first < len(data) && data[first] < utf8.RuneSelf {
		first++
	}
	data = data[max(0, first-sampleLeadIn):]
	if len(data) <= sampleBytes {
		return data
	}
	end := sampleBytes
	for end > sampleBytes-256 && data[end-1] >= utf8.RuneSelf {
		end--
	}
	return data[:end]
}
