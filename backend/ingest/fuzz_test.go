package ingest

import (
	"testing"
	"unicode/utf8"
)

// FuzzSplit checks that for any valid UTF-8 text every chunk's offsets slice
// exactly its text out of the document, stay inside its section, and respect
// the token limit.
func FuzzSplit(f *testing.F) {
	f.Add("# Title\n\nSome text.\n\n## Sub\nmore\n", true, uint8(8))
	f.Add("plain text without headings", false, uint8(4))
	f.Fuzz(func(t *testing.T, text string, markdown bool, chunk uint8) {
		if !utf8.ValidString(text) {
			if _, _, err := Split("d", "/f/x.md", "md", text, wordCounter{}, Options{}, testNow); err == nil {
				t.Fatal("invalid UTF-8 accepted")
			}
			return
		}
		format := "txt"
		if markdown {
			format = "md"
		}
		opts := Options{ChunkTokens: 3 + int(chunk%64), OverlapTokens: int(chunk % 7)}
		for _, counter := range []TokenCounter{wordCounter{}, runeCounter{}} {
			secs, chunks, err := Split("d", "/f/x."+format, format, text, counter, opts, testNow)
			if err != nil {
				t.Fatal(err)
			}
			if len(secs) == 0 {
				t.Fatal("no sections")
			}
			checkInvariants(t, text, secs, chunks, counter, opts.WithDefaults())
		}
	})
}
