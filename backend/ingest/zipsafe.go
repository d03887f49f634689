package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
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
		return nil, damaged("the %s file is damaged (not a valid zip archive%s); re-save it and scan again", kind, colonCause(err))
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
