//go:build linux

package charset

import (
	"bytes"
	"os/exec"
	"testing"
	"unicode/utf8"
)

// TestJohabMatchesIconv decodes every two-byte Johab code and compares
// with glibc's iconv: Hangul syllables and lone jamo, symbols and Hanja.
func TestJohabMatchesIconv(t *testing.T) {
	var codes [][]byte
	for b1 := 0x84; b1 <= 0xf9; b1++ {
		for b2 := 0x31; b2 <= 0xfe; b2++ {
			codes = append(codes, []byte{byte(b1), byte(b2)})
		}
	}
	want := iconvEach(t, "JOHAB", codes)
	for i, code := range codes {
		if code[1] == 0x5c && want[i] == 0x20a9 {
			want[i] = 0 // iconv skipped the lead byte and read 0x5C alone, as ₩
		}
	}
	agree, decoded := 0, 0
	for i, code := range codes {
		got, _ := Johab.NewDecoder().Bytes(code)
		r, n := utf8.DecodeRune(got)
		if n != len(got) || r == utf8.RuneError {
			r = 0
		}
		if want[i] == 0 && r == 0 {
			continue
		}
		decoded++
		if r == want[i] {
			agree++
		} else if decoded-agree <= 5 {
			t.Logf("Johab % x: %U, iconv %U", code, r, want[i])
		}
	}
	t.Logf("%d of %d Johab characters as iconv reads them", agree, decoded)
	// One symbol KS X 1001 gained in 2002 (U+327E at 0xD9E8) is not in
	// x/text's EUC-KR table, which Johab's symbols are read through.
	if agree < decoded-1 || decoded < 11172 {
		t.Errorf("%d of %d agree", agree, decoded)
	}
}

// iconvEach is what iconv reads each code as in charset: one rune, or 0.
func iconvEach(t *testing.T, charset string, codes [][]byte) []rune {
	t.Helper()
	cmd := exec.Command("iconv", "-c", "-f", charset, "-t", "UTF-8")
	cmd.Stdin = bytes.NewReader(bytes.Join(codes, []byte("\n")))
	res, err := cmd.Output()
	if err != nil && len(res) == 0 {
		t.Fatalf("iconv: %v", err)
	}
	lines := bytes.Split(res, []byte("\n"))
	if len(lines) != len(codes) {
		t.Fatalf("iconv gave %d lines for %d codes", len(lines), len(codes))
	}
	out := make([]rune, len(codes))
	for i, l := range lines {
		// A byte iconv skips leaves the next one, ASCII, alone on its line.
		if r, n := utf8.DecodeRune(l); n == len(l) && n > 0 && r != utf8.RuneError && r >= utf8.RuneSelf {
			out[i] = r
		}
	}
	return out
}
