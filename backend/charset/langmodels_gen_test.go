package charset

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The language models are counted from one UTF-8 text file per language,
// <lang>.txt, in the folder -text names: the sentences ("# text = …"
// lines) of a Universal Dependencies treebank, CC BY-SA or BY-NC-SA
// licensed (only letter counts are kept, no text):
//
//	ru GSD, bg BTB, uk IU, el GDT, he IAHLTwiki, ar PUD, th PUD, cs FicTree,
//	sk SNK, pl PDB, hu Szeged, hr SET, sl SSJ, ro RRT, sr SET, tr IMST,
//	en EWT, fr GSD, de GSD, es GSD, pt Bosque, it ISDT, nl Alpino,
//	sv Talbanken, da DDT, fi TDT, is Modern, nb Bokmaal, ko GSD,
//	zh-hant GSD, zh-hans GSDSimp, ja GSD
//
//	go test ./backend/charset -run TestGenerateLanguageModels -args -text DIR
var textDir = flag.String("text", "", "folder of <lang>.txt files to count language models from")

// cjkLanguages are scored on single characters: their pairs are too many
// to keep.
var cjkLanguages = []string{"ko", "zh-hant", "zh-hans", "ja"}

// cjkKept is how many of a CJK language's characters are kept (the rest
// cost the floor): 6,000 cover all but a fraction of a percent of text.
const cjkKept = 6000

func TestGenerateLanguageModels(t *testing.T) {
	if *textDir == "" {
		t.Skip("a generator: give -text DIR to count the language models anew")
	}
	files, err := filepath.Glob(filepath.Join(*textDir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no <lang>.txt files in %s (%v)", *textDir, err)
	}
	slices.Sort(files)
	var out bytes.Buffer
	out.WriteString("# language\tkind\tsymbol:cost … (cost = -10 ln p; 1 a letter, 2 a letter after another, floor the cost of an unseen letter)\n")
	for _, f := range files {
		lang := strings.TrimSuffix(filepath.Base(f), ".txt")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		writeModel(&out, lang, strings.ToValidUTF8(string(data), ""), slices.Contains(cjkLanguages, lang))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(out.Bytes())
	zw.Close()
	if err := os.WriteFile("langmodels.txt.gz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d languages, %d bytes (%d compressed)", len(files), out.Len(), gz.Len())
}

func writeModel(out *bytes.Buffer, lang, text string, cjk bool) {
	single := map[rune]int{}
	pair := map[[2]rune]int{}
	after := map[rune]int{}
	total := 0
	prev := boundary
	for _, r := range text {
		sym := symbol(r)
		if sym == boundary && prev == boundary {
			continue
		}
		single[sym]++
		total++
		pair[[2]rune{prev, sym}]++
		after[prev]++
		prev = sym
	}
	cost := func(p float64) int { return int(math.Round(-10 * math.Log(p))) }
	syms := make([]rune, 0, len(single))
	for r, n := range single {
		if n >= 2 {
			syms = append(syms, r)
		}
	}
	slices.SortFunc(syms, func(a, b rune) int { return cmp.Or(cmp.Compare(single[b], single[a]), cmp.Compare(a, b)) })
	if cjk && len(syms) > cjkKept {
		syms = syms[:cjkKept]
	}
	kind := "1"
	fmt.Fprintf(out, "%s\tfloor\t:%d\n", lang, cost(0.5/float64(total)))
	if cjk {
		fmt.Fprintf(out, "%s\tcjk\n", lang)
	}
	fmt.Fprintf(out, "%s\t%s", lang, kind)
	for _, r := range syms {
		fmt.Fprintf(out, "\t%c:%d", r, cost(float64(single[r])/float64(total)))
	}
	out.WriteString("\n")
	if cjk {
		return
	}
	pairs := make([][2]rune, 0, len(pair))
	for p, n := range pair {
		if n >= 2 && (p[0] >= utf8.RuneSelf || p[1] >= utf8.RuneSelf) {
			pairs = append(pairs, p)
		}
	}
	slices.SortFunc(pairs, func(a, b [2]rune) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	fmt.Fprintf(out, "%s\t2", lang)
	for _, p := range pairs {
		fmt.Fprintf(out, "\t%c%c:%d", p[0], p[1], cost(float64(pair[p])/float64(after[p[0]])))
	}
	out.WriteString("\n")
}
