//go:build linux

package ingest

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCharsetCorpus measures charset detection on a public test corpus
// organised by charset, one folder per charset (chardet's tests/ folder:
// "windows-1251-russian", "KOI8-R", "Johab", …), named by
// FOOTNOTE_CHARSET_CORPUS. Every file is decoded as a text file is
// (decodeText) and compared with what glibc's iconv makes of it in the
// folder's charset; it counts as right when the texts agree (a superset's
// decoding, such as Windows-1252 for ISO-8859-1, agrees). It reports per
// charset family the share decoded right. A third of the files, picked by a
// hash of their path, is held out: FOOTNOTE_CHARSET_SPLIT=tune (the default)
// measures the rest and lists what went wrong, heldout measures only the
// held-out third, all measures everything.
//
//	FOOTNOTE_CHARSET_CORPUS=~/chardet/tests go test -run TestCharsetCorpus -v ./backend/ingest/
func TestCharsetCorpus(t *testing.T) {
	root := os.Getenv("FOOTNOTE_CHARSET_CORPUS")
	if root == "" {
		t.Skip("set FOOTNOTE_CHARSET_CORPUS to a folder of test files in folders named by charset to run this")
	}
	split := os.Getenv("FOOTNOTE_CHARSET_SPLIT")
	if split == "" {
		split = "tune"
	}
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ files, right, failed int }
	byFamily, byFolder := map[string]*tally{}, map[string]*tally{}
	var wrong []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		charset, family := corpusCharset(d.Name())
		if family == "" {
			t.Logf("skipping folder %s: charset not known", d.Name())
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*"))
		slices.Sort(files)
		for _, f := range files {
			rel, _ := filepath.Rel(root, f)
			h := fnv.New32a()
			h.Write([]byte(rel))
			heldOut := h.Sum32()%3 == 0
			if split == "tune" && heldOut || split == "heldout" && !heldOut {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			truth, err := iconvDecode(data, charset)
			if err != nil {
				t.Logf("%s: iconv cannot read it as %s, left out (%v)", rel, charset, err)
				continue
			}
			k, kd := byFamily[family], byFolder[d.Name()]
			if k == nil {
				k = &tally{}
				byFamily[family] = k
			}
			if kd == nil {
				kd = &tally{}
				byFolder[d.Name()] = kd
			}
			k.files++
			kd.files++
			dec, err := decodeText(data)
			switch {
			case err != nil:
				k.failed++
				kd.failed++
				wrong = append(wrong, fmt.Sprintf("%s: failed: %v", rel, err))
			case sameText(dec.text, truth), sameCharset(dec.charset, charset):
				k.right++
				kd.right++
			default:
				wrong = append(wrong, fmt.Sprintf("%s: read as %q", rel, dec.charset))
			}
		}
	}
	folders := make([]string, 0, len(byFolder))
	for f := range byFolder {
		folders = append(folders, f)
	}
	slices.Sort(folders)
	for _, f := range folders {
		k := byFolder[f]
		t.Logf("folder %-24s %3d of %3d", f, k.right, k.files)
	}
	families := make([]string, 0, len(byFamily))
	for f := range byFamily {
		families = append(families, f)
	}
	slices.Sort(families)
	total, right := 0, 0
	for _, f := range families {
		k := byFamily[f]
		total += k.files
		right += k.right
		t.Logf("%-16s %3d files: %3d right (%5.1f%%), %3d failed", f, k.files, k.right, 100*float64(k.right)/float64(k.files), k.failed)
	}
	t.Logf("%-16s %3d files: %3d right (%5.1f%%)", "all ("+split+")", total, right, 100*float64(right)/float64(max(total, 1)))
	if split != "heldout" {
		for _, w := range wrong {
			t.Log(w)
		}
	}
}

// corpusCharset maps a corpus folder name to iconv's name for its charset
// and the family it is counted in ("" when unknown).
func corpusCharset(dir string) (charset, family string) {
	lower := strings.ToLower(dir)
	switch {
	case strings.HasPrefix(lower, "windows-125") || strings.HasPrefix(lower, "iso-8859-"):
		parts := strings.SplitN(lower, "-", 4)
		charset = strings.ToUpper(strings.Join(parts[:min(len(parts), 3)], "-"))
		if strings.HasPrefix(lower, "windows") {
			charset = strings.ToUpper(parts[0] + "-" + parts[1])
		}
		return charset, charsetFamily(charset)
	}
	switch lower {
	case "ibm855", "ibm866", "koi8-r", "maccyrillic":
		return map[string]string{"ibm855": "IBM855", "ibm866": "IBM866", "koi8-r": "KOI8-R", "maccyrillic": "MAC-CYRILLIC"}[lower], "Cyrillic"
	case "tis-620":
		return "CP874", "Thai" // Windows-874, TIS-620's superset, which two of these files use
	case "macroman":
		return "MACINTOSH", "Western"
	case "big5", "gb2312", "euc-tw":
		return strings.ToUpper(dir), "Chinese"
	case "euc-kr", "cp949", "johab", "iso-2022-kr":
		return strings.ToUpper(dir), "Korean"
	case "shift_jis", "cp932", "euc-jp", "iso-2022-jp":
		return strings.ToUpper(dir), "Japanese"
	case "utf-16", "utf-16be", "utf-16le", "utf-32", "utf-32be", "utf-32le", "utf-8", "utf-8-sig", "ascii":
		if lower == "utf-8-sig" {
			return "UTF-8", "Unicode"
		}
		return strings.ToUpper(dir), "Unicode"
	}
	return "", ""
}

func charsetFamily(charset string) string {
	switch charset {
	case "WINDOWS-1251", "ISO-8859-5":
		return "Cyrillic"
	case "WINDOWS-1253", "ISO-8859-7":
		return "Greek"
	case "WINDOWS-1255", "ISO-8859-8":
		return "Hebrew"
	case "WINDOWS-1256", "ISO-8859-6":
		return "Arabic"
	case "WINDOWS-1250", "ISO-8859-2":
		return "Central European"
	case "WINDOWS-1254", "ISO-8859-9":
		return "Turkish"
	case "WINDOWS-1252", "ISO-8859-1":
		return "Western"
	}
	return ""
}

// sameCharset reports whether the charset decodeText named is the
// folder's, or one it is a superset of, for charsets x/text decodes: there
// a differing text is a mapping variant (glibc reads EUC-JP's 0xA1C1 as
// 〜, x/text as ～; glibc composes Hebrew points), not a wrong charset. The
// decoders of this project (Johab, EUC-TW, ISO-2022-KR) are judged by
// their text alone.
func sameCharset(detected, folder string) bool {
	norm := func(s string) string {
		s, _, _ = strings.Cut(s, " (")
		return strings.ToUpper(strings.NewReplacer("-", "", "_", "").Replace(s))
	}
	d, f := norm(detected), norm(folder)
	supersets := map[string][]string{
		"WINDOWS1252": {"ISO88591"}, "EUCKR": {"CP949"}, "SHIFTJIS": {"CP932"}, "GB18030": {"GB2312"},
		"TIS620": {"CP874"}, "MACCYRILLIC": {"MACCYRILLIC"}, "MACROMAN": {"MACINTOSH"},
	}
	return d != "" && d != "JOHAB" && d != "EUCTW" && d != "ISO2022KR" && (d == f || slices.Contains(supersets[d], f))
}

// iconvDecode is glibc iconv's UTF-8 for data in charset.
func iconvDecode(data []byte, charset string) (string, error) {
	cmd := exec.Command("iconv", "-f", charset, "-t", "UTF-8")
	cmd.Stdin = bytes.NewReader(data)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

// sameText reports whether got is truth, up to a leading byte-order mark
// and one character in a hundred (a superset's reading of a byte the
// labelled charset leaves undefined, such as Windows-1252's “ for
// ISO-8859-1's C1 control).
func sameText(got, truth string) bool {
	got, truth = strings.TrimPrefix(got, "\uFEFF"), strings.TrimPrefix(truth, "\uFEFF")
	if got == truth {
		return true
	}
	g, w := []rune(got), []rune(truth)
	if len(g) != len(w) {
		return false
	}
	diff := 0
	for i := range g {
		if g[i] != w[i] {
			diff++
		}
	}
	return diff*100 <= len(w)
}
