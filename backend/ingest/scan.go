package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/charset"
)

// sniffBytes is how much of a file Scan reads to tell text from binary.
const sniffBytes = 8 << 10

// Scan walks the given folders and files and returns the supported files and
// the skipped ones with reasons. Folders are walked recursively in name
// order; hidden entries (names starting with ".") inside folders are skipped,
// while a hidden path named explicitly is honoured. Symbolic links inside a
// folder are followed only while they resolve inside that folder: a link to
// a file or folder elsewhere is skipped with a reason (unless
// opts.FollowOutsideLinks), so choosing a folder never indexes what lies
// outside it. Each real folder and file is visited once, so link loops end.
// A path named explicitly is the user's choice and is followed even when it
// is a link. A path that does not exist is an error naming it.
func Scan(paths []string, opts Options) ([]File, []Skip, error) {
	return scan("", paths, opts)
}

// ScanWithin is Scan for paths inside the folder root, such as a changed
// file or subfolder of a watched folder: links are judged against root, so a
// path that is, or passes through, a link leading out of root is skipped as
// a scan of root would skip it. When root is a file, nothing is bounded.
func ScanWithin(root string, paths []string, opts Options) ([]File, []Skip, error) {
	if root == "" {
		return nil, nil, errors.New("scan: no folder given to scan within")
	}
	return scan(root, paths, opts)
}

func scan(root string, paths []string, opts Options) ([]File, []Skip, error) {
	opts = opts.WithDefaults()
	s := &scanner{
		opts:      opts,
		seenDirs:  map[string]bool{},
		seenFiles: map[string]string{},
	}
	bound := ""
	if root != "" {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, nil, fmt.Errorf("scan %s: %w", root, err)
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			bound = realPath(abs)
		}
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, nil, fmt.Errorf("scan %s: %w", p, err)
		}
		abs = filepath.Clean(abs)
		info, err := os.Stat(abs) // follows a symlinked argument on purpose
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("scan: %s does not exist; check the path and try again", abs)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("scan %s: %w", abs, err)
		}
		switch {
		case root != "":
			s.bound = bound
			if reason, out := s.outside(abs, info.IsDir()); out {
				s.skip(abs, reason)
				continue
			}
		case info.IsDir():
			s.bound = realPath(abs)
		default:
			s.bound = ""
		}
		if info.IsDir() {
			if err := s.walkRoot(abs); err != nil {
				return nil, nil, err
			}
			continue
		}
		s.file(abs, info)
	}
	return s.files, s.skips, nil
}

// realPath resolves every link in path; a path that cannot be resolved is
// returned as it is.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// outside reports whether path resolves outside the folder being scanned
// and, if so, why it is skipped. The reason names the link's own target as
// written when path is a link, else where it resolves.
func (s *scanner) outside(path string, isDir bool) (string, bool) {
	if s.bound == "" || s.opts.FollowOutsideLinks {
		return "", false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || within(real, s.bound) {
		return "", false // unresolvable paths are reported by the checks that follow
	}
	target, err := os.Readlink(path)
	if err != nil {
		target = real
	}
	kind := "file"
	if isDir {
		kind = "folder"
	}
	return fmt.Sprintf("a link to a %s outside the folder (%s); allow links outside the folder in Settings (follow_outside_links) to index it", kind, target), true
}

type scanner struct {
	opts      Options
	bound     string // real path of the folder links must stay inside; "" bounds nothing
	files     []File
	skips     []Skip
	seenDirs  map[string]bool   // real (symlink-resolved) folder paths
	seenFiles map[string]string // real file path -> path it was first found at
}

func (s *scanner) skip(path, reason string) {
	s.skips = append(s.skips, Skip{Path: path, Reason: reason})
}

func (s *scanner) walkRoot(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("scan %s: cannot read folder: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		real = dir
	}
	if s.seenDirs[real] {
		return nil
	}
	s.seenDirs[real] = true
	s.entries(dir, entries)
	return nil
}

func (s *scanner) walk(dir string) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		s.skip(dir, "cannot resolve folder: "+err.Error())
		return
	}
	if s.seenDirs[real] {
		s.skip(dir, "folder already scanned (symbolic link loop or duplicate)")
		return
	}
	s.seenDirs[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		s.skip(dir, "cannot read folder: "+err.Error())
		return
	}
	s.entries(dir, entries)
}

// entries visits a folder's entries; os.ReadDir returns them sorted by name,
// which makes the scan order deterministic.
func (s *scanner) entries(dir string, entries []os.DirEntry) {
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		hidden := strings.HasPrefix(e.Name(), ".")
		if hidden && e.IsDir() {
			s.skip(path, "hidden folder")
			continue
		}
		if hidden {
			s.skip(path, "hidden file")
			continue
		}
		info, err := os.Stat(path) // follows symlinks; loops are caught in walk
		if err != nil {
			if e.Type()&fs.ModeSymlink != 0 {
				s.skip(path, "broken symbolic link")
			} else {
				s.skip(path, "cannot read file: "+err.Error())
			}
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if reason, out := s.outside(path, info.IsDir()); out {
				s.skip(path, reason)
				continue
			}
		}
		if info.IsDir() {
			s.walk(path)
			continue
		}
		s.file(path, info)
	}
}

func (s *scanner) file(path string, info fs.FileInfo) {
	if !info.Mode().IsRegular() {
		s.skip(path, "not a regular file")
		return
	}
	format := formatOf(path)
	if format == "" {
		if ext := filepath.Ext(path); ext != "" {
			s.skip(path, "unsupported file type "+strings.ToLower(ext))
		} else {
			s.skip(path, "unsupported file type (no extension)")
		}
		return
	}
	if info.Size() > s.opts.MaxFileBytes {
		s.skip(path, fmt.Sprintf("file too large (%s, limit %s)", humanBytes(info.Size()), humanBytes(s.opts.MaxFileBytes)))
		return
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	if first, ok := s.seenFiles[real]; ok {
		s.skip(path, "same file as "+first)
		return
	}
	if !binaryFormat(format) {
		binary, err := looksBinary(path)
		if err != nil {
			s.skip(path, "cannot read file: "+err.Error())
			return
		}
		if binary {
			s.skip(path, "binary file")
			return
		}
	}
	s.seenFiles[real] = path
	s.files = append(s.files, File{Path: path, Size: info.Size(), ModTime: info.ModTime(), Format: format})
}

// looksBinary reports whether the start of the file contains a NUL byte,
// which text files never do (UTF-16/32 text, with a byte-order mark or
// recognised without one, is the exception).
func looksBinary(path string) (bool, error) {
	fh, _, err := openRegular(path, math.MaxInt64) // the path may have changed since it was listed
	if err != nil {
		return false, err
	}
	defer fh.Close()
	buf := make([]byte, sniffBytes)
	n, err := io.ReadFull(fh, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false, err
	}
	if hasByteOrderMark(buf[:n]) {
		return false, nil
	}
	if _, ok := charset.Unicode(buf[:n]); ok {
		return false, nil // UTF-16/32 without a byte-order mark
	}
	return bytes.IndexByte(buf[:n], 0) >= 0, nil
}
