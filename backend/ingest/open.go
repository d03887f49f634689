package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// openRegular opens path for reading without blocking and checks, on the
// opened file, that it is a regular file within limit. The path may have
// been replaced since it was scanned: opening a FIFO normally waits for a
// writer, and a device such as /dev/zero never ends, so both are refused
// before anything is read.
//
// Errors from the system (missing file, no permission) come back as they
// are; the checks' errors are sentences.
func openRegular(path string, limit int64) (*os.File, fs.FileInfo, error) {
	fh, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, nil, err
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if mode := info.Mode(); !mode.IsRegular() {
		fh.Close()
		if mode.IsDir() {
			return nil, nil, fmt.Errorf("is a folder, not a file")
		}
		return nil, nil, fmt.Errorf("is %s, not a regular file; only regular files can be indexed", describeMode(mode))
	}
	if info.Size() > limit {
		fh.Close()
		return nil, nil, tooLarge(limit)
	}
	return fh, info, nil
}

func describeMode(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

func tooLarge(limit int64) error {
	return fmt.Errorf("file is larger than the %s limit; split it or raise the limit", humanBytes(limit))
}

// ReadFile reads a file to be indexed: opened without blocking, checked to
// be a regular file within opts.MaxFileBytes, and read no further than that
// limit even if the file grows meanwhile. A missing file's error matches
// fs.ErrNotExist.
func ReadFile(path string, opts Options) ([]byte, error) {
	limit := opts.WithDefaults().MaxFileBytes
	fh, info, err := openRegular(path, limit)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, fmt.Errorf("cannot read file: %w", err)
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(fh, limit+1)); err != nil {
		return nil, fmt.Errorf("cannot read file: %w", err)
	}
	if int64(buf.Len()) > limit {
		return nil, tooLarge(limit)
	}
	return buf.Bytes(), nil
}
