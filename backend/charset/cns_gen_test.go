//go:build linux

package charset

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"flag"
	"os"
	"testing"
)

var generateCNS = flag.Bool("cns", false, "write cns11643.bin.gz from glibc's iconv")

// TestGenerateCNSTable writes cns11643.bin.gz, planes 1 and 2 of CNS 11643
// as Unicode, from what glibc's iconv makes of every EUC-TW code:
//
//	go test ./backend/charset -run TestGenerateCNSTable -args -cns
func TestGenerateCNSTable(t *testing.T) {
	if !*generateCNS {
		t.Skip("a generator: give -cns to write the CNS 11643 table anew")
	}
	var codes [][]byte
	for plane := 1; plane <= 2; plane++ {
		for row := range 94 {
			for col := range 94 {
				code := []byte{byte(0xa1 + row), byte(0xa1 + col)}
				if plane == 2 {
					code = append([]byte{0x8e, 0xa2}, code...)
				}
				codes = append(codes, code)
			}
		}
	}
	var raw bytes.Buffer
	for _, r := range iconvEach(t, "EUC-TW", codes) {
		binary.Write(&raw, binary.LittleEndian, uint32(r))
	}
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write(raw.Bytes())
	zw.Close()
	if err := os.WriteFile("cns11643.bin.gz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
