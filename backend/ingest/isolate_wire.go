package ingest

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// A request or an answer travels as a frame: a JSON header, then the file's
// bytes or the extracted text as they are (JSON or gob would spend most of
// a second on a 30 MB file).
type extractRequest struct {
	Format       string        `json:"format"`
	MaxFileBytes int64         `json:"max_file_bytes"`
	Timeout      time.Duration `json:"timeout"`
	Data         []byte        `json:"-"` // the payload
}

type extractResponse struct {
	Title      string        `json:"title"`
	Headings   []wireHeading `json:"headings"`
	PageStarts []int         `json:"page_starts"`
	ImagePages []int         `json:"image_pages,omitempty"`
	Charset    string        `json:"charset,omitempty"`
	PDFReader  string        `json:"pdf_reader,omitempty"`
	Notes      []string      `json:"notes"`
	Error      string        `json:"error"`    // "" on success
	Kind       string        `json:"kind"`     // which of ErrEncrypted, ErrDamaged, ErrUnsafe the error is; "" for none
	PeakRSS    int64         `json:"peak_rss"` // the child's peak resident memory during the file, in bytes; 0 where unknown
	Text       string        `json:"-"`        // the payload
}

type wireHeading struct {
	Start int    `json:"start"`
	Level int    `json:"level"`
	Title string `json:"title"`
}

// maxFrameHeader bounds a header: page starts and headings of a large file
// fit with room to spare.
const maxFrameHeader = 256 << 20

func writeFrame(w *bufio.Writer, header any, payload []byte) error {
	h, err := json.Marshal(header)
	if err != nil {
		return err
	}
	w.Write(binary.BigEndian.AppendUint64(nil, uint64(len(h))))
	w.Write(h)
	w.Write(binary.BigEndian.AppendUint64(nil, uint64(len(payload))))
	w.Write(payload)
	return w.Flush()
}

func readLength(r io.Reader, limit int64) (int64, error) {
	var b [8]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return 0, err
	}
	n := binary.BigEndian.Uint64(b[:])
	if n > uint64(limit) {
		return 0, fmt.Errorf("frame of %d bytes, limit %d", n, limit)
	}
	return int64(n), nil
}

func readHeader(r io.Reader, header any) error {
	n, err := readLength(r, maxFrameHeader)
	if err != nil {
		return err
	}
	h := make([]byte, n)
	if _, err := io.ReadFull(r, h); err != nil {
		return err
	}
	return json.Unmarshal(h, header)
}

func readPayload(r io.Reader, limit int64) ([]byte, error) {
	n, err := readLength(r, limit)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return b, err
}

func readPayloadString(r io.Reader, limit int64) (string, error) {
	n, err := readLength(r, limit)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(int(n))
	_, err = io.CopyN(&b, r, n)
	return b.String(), err
}

var errorKinds = map[string]error{"encrypted": ErrEncrypted, "damaged": ErrDamaged, "unsafe": ErrUnsafe}

func responseOf(ex extracted, err error) extractResponse {
	if err != nil {
		resp := extractResponse{Error: err.Error()}
		for name, kind := range errorKinds {
			if errors.Is(err, kind) {
				resp.Kind = name
			}
		}
		return resp
	}
	resp := extractResponse{Text: ex.text, Title: ex.title, PageStarts: ex.pageStarts, ImagePages: ex.imagePages, Charset: ex.charset, PDFReader: ex.pdfReader, Notes: ex.notes}
	for _, h := range ex.headings {
		resp.Headings = append(resp.Headings, wireHeading{Start: h.start, Level: h.level, Title: h.title})
	}
	return resp
}

func (resp extractResponse) extracted() (extracted, error) {
	if resp.Error != "" {
		if kind := errorKinds[resp.Kind]; kind != nil {
			return extracted{}, &fileError{msg: resp.Error, kind: kind}
		}
		return extracted{}, errors.New(resp.Error)
	}
	ex := extracted{text: resp.Text, title: resp.Title, pageStarts: resp.PageStarts, imagePages: resp.ImagePages, charset: resp.Charset, pdfReader: resp.PDFReader, notes: resp.Notes}
	for _, h := range resp.Headings {
		ex.headings = append(ex.headings, heading{start: h.Start, level: h.Level, title: h.Title})
	}
	return ex, nil
}
