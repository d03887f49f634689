package charset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestSamples reads every committed sample: sentences of Universal
// Dependencies treebanks the language models were not counted on, saved
// in a charset (testdata/samples/<charset>/<lang>-<size>.txt, their UTF-8
// beside as .utf8; SOURCES.md names them and their licences). Each must be
// recognised and decoded to its own text the way a text file is read:
// UTF-16/32 by its NUL bytes, ISO-2022 by its escapes, anything else not
// UTF-8 by the statistics. "short" samples are one to three sentences
// (about 160 bytes), "long" ones about 2 KB.
func TestSamples(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("testdata", "samples", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no samples: %v", err)
	}
	files, right := 0, 0
	for _, dir := range dirs {
		encoded, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
		for _, f := range encoded {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(f, ".txt") + ".utf8")
			if err != nil {
				t.Fatal(err)
			}
			files++
			d, ok := recognise(data)
			if !ok {
				t.Errorf("%s: not recognised", f)
				continue
			}
			got, err := d.Encoding.NewDecoder().Bytes(data)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: read as %s: %.60q…", f, d.Name, got)
				continue
			}
			right++
		}
	}
	t.Logf("%d of %d samples recognised and decoded to their text", right, files)
}

// recognise is the order a text file is read in (ingest's decodeText,
// byte-order marks aside).
func recognise(data []byte) (Detection, bool) {
	switch {
	case bytes.IndexByte(data, 0) >= 0:
		return Unicode(data)
	case utf8.Valid(data):
		return SevenBit(data)
	}
	return Detect(data)
}

// BenchmarkDetect detects the charset of a 64 KB Windows-1251 text (every
// candidate decodes and scores it).
func BenchmarkDetect(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "samples", "Windows-1251", "ru-long.txt"))
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(one, sampleBytes/len(one)+1)
	b.SetBytes(int64(len(cutSample(data))))
	for b.Loop() {
		if d, ok := Detect(data); !ok || d.Name != "Windows-1251" {
			b.Fatalf("detected %v %v", d, ok)
		}
	}
}

// TestDetectPastALongASCIIHead: a file whose first byte beyond ASCII comes
// after more ASCII than the sample holds (a log or a device listing) is
// judged on the bytes beyond ASCII, not refused for showing none.
func TestDetectPastALongASCIIHead(t *testing.T) {
	head := bytes.Repeat([]byte(`"VendorID"=1452,"ProductID"=613,"Transport"="USB",`+"\n"), 3*sampleBytes/50)
	sample := filepath.Join("testdata", "samples", "Windows-1251", "ru-long")
	russian, err := os.ReadFile(sample + ".txt")
	if err != nil {
		t.Fatal(err)
	}
	russianText, err := os.ReadFile(sample + ".utf8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tail, want string }{
		{`"Product"="Daniel Blanchard` + "\xd5" + `s Trackpad #1"` + "\n", `"Product"="Daniel Blanchard’s Trackpad #1"` + "\n"},
		{string(russian), string(russianText)},
	} {
		data := append(bytes.Clone(head), c.tail...)
		d, ok := Detect(data)
		if !ok {
			t.Errorf("%.30q after %d bytes of ASCII: not recognised", c.tail, len(head))
			continue
		}
		got, err := d.Encoding.NewDecoder().Bytes(data)
		if err != nil || !bytes.Equal(got[len(head):], []byte(c.want)) {
			t.Errorf("%.30q after %d bytes of ASCII: read as %s: %.40q", c.tail, len(head), d.Name, got[len(head):])
		}
	}
}
