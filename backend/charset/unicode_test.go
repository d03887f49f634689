package charset

import (
	"math/rand/v2"
	"os"
	"testing"
)

// TestUnicodeRefusesBinary: data with NUL bytes that is not UTF-16 or
// UTF-32 text (compressed data, random bytes, a Windows executable's
// header) is not taken for it.
func TestUnicodeRefusesBinary(t *testing.T) {
	gz, err := os.ReadFile("langmodels.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	exe := append([]byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00\xb8\x00\x00\x00"), make([]byte, 40)...)
	for name, data := range map[string][]byte{"gzip": gz, "random": random, "executable": exe} {
		if d, ok := Unicode(data); ok {
			t.Errorf("%s: taken for %s", name, d.Name)
		}
	}
}
