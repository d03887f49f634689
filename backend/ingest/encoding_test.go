package ingest

import (
	"path/filepath"
	"strings"
	"testing"
)

// Real byte sequences of text saved in legacy charsets.
const (
	eucKRKorean  = "\xb4\xeb\xc7\xd1\xb9\xce\xb1\xb9\xc0\xc7 \xbc\xf6\xb5\xb5\xb4\xc2 \xbc\xad\xbf\xef\xc0\xd4\xb4\xcf\xb4\xd9. \xc7\xd1\xb1\xb9\xbe\xee \xb9\xae\xbc\xad\xb8\xa6 \xb0\xcb\xbb\xf6\xc7\xd2 \xbc\xf6 \xc0\xd6\xbe\xee\xbe\xdf \xc7\xd5\xb4\xcf\xb4\xd9. \xbf\xc0\xb4\xc3 \xc8\xb8\xc0\xc7\xb4\xc2 \xbf\xc0\xc8\xc4 \xbc\xbc \xbd\xc3\xbf\xa1 \xbd\xc3\xc0\xdb\xc7\xd5\xb4\xcf\xb4\xd9."
	koreanText   = "대한민국의 수도는 서울입니다. 한국어 문서를 검색할 수 있어야 합니다. 오늘 회의는 오후 세 시에 시작합니다."
	koi8RRussian = "\xed\xcf\xd3\xcb\xd7\xc1 \xd1\xd7\xcc\xd1\xc5\xd4\xd3\xd1 \xd3\xd4\xcf\xcc\xc9\xc3\xc5\xca \xf2\xcf\xd3\xd3\xc9\xc9. \xfc\xd4\xcf \xc4\xcf\xcb\xd5\xcd\xc5\xce\xd4 \xce\xc1 \xd2\xd5\xd3\xd3\xcb\xcf\xcd \xd1\xda\xd9\xcb\xc5, \xc9 \xc5\xc7\xcf \xce\xd5\xd6\xce\xcf \xce\xc1\xca\xd4\xc9 \xd0\xcf\xc9\xd3\xcb\xcf\xcd."
	russianText  = "Москва является столицей России. Это документ на русском языке, и его нужно найти поиском."
	cp1252Quotes = "He said \x93hello\x94 and she said \x93goodbye\x94 \x97 it\x92s the caf\xe9\x92s last day."
	quotesText   = "He said “hello” and she said “goodbye” — it’s the café’s last day."
)

func TestLoadTextCharsets(t *testing.T) {
	utf16le := []byte{0xFF, 0xFE}
	utf16be := []byte{0xFE, 0xFF}
	utf32le := []byte{0xFF, 0xFE, 0, 0}
	for _, r := range "# 제목\n\nHi “you”" {
		utf16le = append(utf16le, byte(r), byte(r>>8))
		utf16be = append(utf16be, byte(r>>8), byte(r))
		utf32le = append(utf32le, byte(r), byte(r>>8), byte(r>>16), 0)
	}
	var utf16leBare, utf32beBare []byte // no byte-order mark
	for _, r := range "Привет\n\nHi “you”, a note about ferries." {
		utf16leBare = append(utf16leBare, byte(r), byte(r>>8))
		utf32beBare = append(utf32beBare, 0, byte(r>>16), byte(r>>8), byte(r))
	}
	for _, tc := range []struct {
		name, file string
		data       string
		text       string
		charset    string // in the note; "" means no note
	}{
		{"EUC-KR", "ko.txt", eucKRKorean, koreanText, "EUC-KR"},
		{"short EUC-KR", "ko2.txt", "\xb4\xeb\xc7\xd1\xb9\xce\xb1\xb9\xc0\xc7 \xbc\xf6\xb5\xb5", "대한민국의 수도", "EUC-KR"},
		{"short Windows-1252", "cafe.txt", "Caf\xe9 cr\xe8me", "Café crème", "Windows-1252"},
		{"KOI8-R", "ru.txt", koi8RRussian, russianText, "KOI8-R"},
		{"Windows-1252", "q.md", cp1252Quotes, quotesText, "Windows-1252"},
		{"UTF-16LE", "le.md", string(utf16le), "# 제목\n\nHi “you”", "UTF-16LE"},
		{"UTF-16BE", "be.md", string(utf16be), "# 제목\n\nHi “you”", "UTF-16BE"},
		{"UTF-32LE", "le32.txt", string(utf32le), "# 제목\n\nHi “you”", "UTF-32LE"},
		{"UTF-16LE without a mark", "bare16.txt", string(utf16leBare), "Привет\n\nHi “you”, a note about ferries.", "UTF-16LE"},
		{"UTF-32BE without a mark", "bare32.txt", string(utf32beBare), "Привет\n\nHi “you”, a note about ferries.", "UTF-32BE"},
		{"ISO-2022-JP", "jp.txt", "\x1b$B5~ET$O\x1b(B Kyoto \x1b$BF|K\\$N\x1b(B", "京都は Kyoto 日本の", "ISO-2022-JP"},
		{"Windows-1251", "ru1251.txt", "\xcc\xee\xf1\xea\xe2\xe0 \xff\xe2\xeb\xff\xe5\xf2\xf1\xff \xf1\xf2\xee\xeb\xe8\xf6\xe5\xe9 \xd0\xee\xf1\xf1\xe8\xe8.", "Москва является столицей России.", "Windows-1251"},
		{"ISO-8859-7", "el.txt", "\xc7 \xe1\xe8\xde\xed\xe1 \xe5\xdf\xed\xe1\xe9 \xe7 \xf0\xf1\xf9\xf4\xfc\xf0\xef\xeb\xe7 \xf4\xe7\xf2 \xc5\xeb\xeb\xdc\xe4\xe1\xf2.", "Η αθήνα είναι η πρωτόπολη της Ελλάδας.", "ISO-8859-7"},
		{"UTF-8 BOM", "bom.md", "\xEF\xBB\xBF# 제목\n\nbody", "\uFEFF# 제목\n\nbody", ""},
		{"short UTF-8 Korean", "k.txt", "한국어", "한국어", ""},
		{"UTF-8 Korean", "k2.md", koreanText, koreanText, ""},
		{"ASCII", "a.txt", "plain text\r\n", "plain text\r\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeBytes(t, filepath.Join(t.TempDir(), tc.file), []byte(tc.data))
			files, skips, err := Scan([]string{path}, Options{})
			if err != nil || len(files) != 1 {
				t.Fatalf("scan: files %v skips %v err %v", files, skips, err)
			}
			doc, notes, err := LoadWithNotes(files[0], wordCounter{}, Options{}, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if doc.Text != tc.text {
				t.Errorf("text = %q, want %q", doc.Text, tc.text)
			}
			if tc.charset == "" && len(notes) != 0 || tc.charset != "" && (len(notes) != 1 || !strings.Contains(notes[0], tc.charset)) {
				t.Errorf("notes = %q, want one naming %q", notes, tc.charset)
			}
			checkInvariants(t, doc.Text, doc.Sections, doc.Chunks, wordCounter{}, Options{}.WithDefaults())
			if strings.HasSuffix(tc.file, ".md") && strings.HasPrefix(tc.text, "# ") && doc.Title != "제목" {
				t.Errorf("title = %q: the decoded heading was not found", doc.Title)
			}
		})
	}
}

func TestDecodeTextRejects(t *testing.T) {
	for name, data := range map[string]string{
		"stray byte in ASCII":    "good text \xc3\x28 broken",
		"cut UTF-8 in a word":    "caf\xc3( is not UTF-8\n",
		"lone byte as a word":    "bad \xff bytes\n",
		"bytes after a word":     "caf\xe9 cr\xe8me \xff\xfe\xfd\n",
		"NUL without mark":       "a\x00b",
		"NUL inside UTF-16 text": "\xff\xfea\x00\x00\x00",
	} {
		if dec, err := decodeText([]byte(data)); err == nil {
			t.Errorf("%s: decoded as %q (%s), want an error", name, dec.text, dec.charset)
		}
	}
}

func TestHTMLWithoutCharsetIsDetected(t *testing.T) {
	path := writeBytes(t, filepath.Join(t.TempDir(), "ko.html"), []byte("<html><body><p>"+eucKRKorean+"</p></body></html>"))
	doc, notes, err := LoadWithNotes(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Text != koreanText {
		t.Errorf("text = %q, want %q", doc.Text, koreanText)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "EUC-KR") || !strings.Contains(notes[0], "no charset declared") {
		t.Errorf("notes = %q", notes)
	}
}
