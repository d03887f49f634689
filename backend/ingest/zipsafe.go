package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"golang.org/x/net/html/charset"
)

// safeZip reads entries of a DOCX or EPUB archive within limits on entry
// count, total inflated size and compression ratio, so a zip bomb fails as
// one file's error instead of filling memory.
type safeZip struct {
	kind  string // "DOCX" or "EPUB", for messages
	files map[string]*zip.File
	lim   limits
	used  int64 // bytes inflated so far
}

func openZip(f io.ReaderAt, size int64, lim limits, kind string) (*safeZip, error) {
	// Count entries from the end-of-central-directory record before
	// archive/zip allocates a header for each one.
	if n, ok := zipEntryCount(f, size); ok && n > lim.maxEntries {
		return nil, overLimit("the %s file has more than %d entries (possible zip bomb); it was not indexed", kind, lim.maxEntries)
	}
	zr, err := zip.NewReader(f, size)
	if err != nil {
		if err := notZipButOffice(f, size, kind); err != nil {
			return nil, err
		}
		cause := colonCause(err)
		if errors.Is(err, zip.ErrFormat) {
			cause = "" // "zip: not a valid zip file" only repeats the message
		}
		return nil, damaged("the %s file is damaged (not a valid zip archive%s); re-save it and scan again", kind, cause)
	}
	if len(zr.File) > lim.maxEntries {
		return nil, overLimit("the %s file has more than %d entries (possible zip bomb); it was not indexed", kind, lim.maxEntries)
	}
	z := &safeZip{kind: kind, files: make(map[string]*zip.File, len(zr.File)), lim: lim}
	for _, zf := range zr.File {
		if _, dup := z.files[zf.Name]; !dup {
			z.files[zf.Name] = zf
		}
	}
	return z, nil
}

// compoundFileMagic opens an OLE2 compound file: the container of the
// binary Office formats (.doc, .xls, .ppt) and of a password-protected
// DOCX, XLSX or PPTX, whose zip is encrypted into its "EncryptedPackage"
// stream.
var compoundFileMagic = []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1")

// notZipButOffice says what a file that is not a zip archive is when it is
// an OLE2 compound file (Tika's password-protected test files were
// reported "damaged" before): password-protected when it holds an
// encrypted package, else an older binary Office file under a new
// extension. It returns nil for anything else.
func notZipButOffice(f io.ReaderAt, size int64, kind string) error {
	head := make([]byte, len(compoundFileMagic))
	if _, err := f.ReadAt(head, 0); err != nil || !bytes.Equal(head, compoundFileMagic) {
		return nil
	}
	// Stream names are UTF-16LE in 128-byte directory entries, which may
	// lie anywhere in the file; it is already in memory, within the size
	// limit.
	data, _ := io.ReadAll(io.NewSectionReader(f, 0, size))
	if bytes.Contains(data, utf16le("EncryptedPackage")) {
		return &fileError{msg: fmt.Sprintf("the %s file is password-protected; remove the password and scan again", kind), kind: ErrEncrypted}
	}
	return damaged("the %s file is an older binary Office document, not %s; save it as %s and scan again", kind, kind, kind)
}

// utf16le is s (ASCII) as UTF-16LE bytes.
func utf16le(s string) []byte {
	out := make([]byte, 0, 2*len(s))
	for i := range len(s) {
		out = append(out, s[i], 0)
	}
	return out
}

// zipEntryCount reads the entry count of the end-of-central-directory record
// (at most 64 KiB of comment follow it).
func zipEntryCount(f io.ReaderAt, size int64) (int, bool) {
	const eocdLen = 22
	n := min(size, eocdLen+0xFFFF)
	if n < eocdLen {
		return 0, false
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && !errors.Is(err, io.EOF) {
		return 0, false
	}
	i := bytes.LastIndex(buf, []byte("PK\x05\x06"))
	if i < 0 || len(buf)-i < eocdLen {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(buf[i+10:])), true
}

var errNoEntry = errors.New("no such entry")

// read inflates one entry. It stops as soon as the archive's inflated total
// passes its limit, and rejects a large entry that inflates more than
// maxRatio times its compressed size.
func (z *safeZip) read(name string) ([]byte, error) {
	zf, ok := z.files[name]
	if !ok {
		return nil, errNoEntry
	}
	remaining := z.lim.maxUnzipped - z.used
	bomb := overLimit("the %s file expands to more than %s (possible zip bomb); it was not indexed", z.kind, humanBytes(z.lim.maxUnzipped))
	if zf.UncompressedSize64 > uint64(remaining) {
		return nil, bomb
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, damaged("the %s file is damaged (%s%s); re-save it and scan again", z.kind, name, colonCause(err))
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, remaining+1))
	if err != nil {
		return nil, damaged("the %s file is damaged (%s%s); re-save it and scan again", z.kind, name, colonCause(err))
	}
	n := int64(len(data))
	if n > remaining {
		return nil, bomb
	}
	if n > z.lim.ratioFloor && n > z.lim.maxRatio*max(int64(zf.CompressedSize64), 1) {
		return nil, overLimit("the %s file's entry %s is compressed more than %d:1 (possible zip bomb); it was not indexed", z.kind, name, z.lim.maxRatio)
	}
	z.used += n
	return data, nil
}

// xmlTokens walks an XML document, calling fn for every token, with a cap on
// element nesting. Go's decoder never expands DTD entities, so entity bombs
// cannot occur.
func xmlTokens(data []byte, maxDepth int, what string, fn func(xml.Token) error) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	d.CharsetReader = charset.NewReaderLabel
	depth := 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return damaged("%s is not well-formed XML%s; re-save the file and scan again", what, because(err))
		}
		switch tok.(type) {
		case xml.StartElement:
			depth++
			if depth > maxDepth {
				return overLimit("%s nests elements more than %d levels deep; it was not indexed", what, maxDepth)
			}
		case xml.EndElement:
			depth--
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

func attr(e xml.StartElement, local string) string {
	for _, a := range e.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
