package ingest

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// smallExtractors makes children cheap to kill for one test.
func smallExtractors(t *testing.T, memFloor int64, timeout time.Duration) {
	setIsolation(t, true)
	oldFloor, oldTimeout := extractMemoryFloor, extractTimeout
	extractMemoryFloor = memFloor
	extractTimeout = func(int64) time.Duration { return timeout }
	t.Cleanup(func() {
		StopChildren()
		extractMemoryFloor, extractTimeout = oldFloor, oldTimeout
	})
	StopChildren() // children with other limits
}

// loadsAfter checks that a healthy file still loads once a child has died.
func loadsAfter(t *testing.T) {
	t.Helper()
	path := writeBytes(t, filepath.Join(t.TempDir(), "fine.pdf"), rawPDF(onePage(plainContent("still fine")), "/Root 1 0 R"))
	doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
	if err != nil || !strings.Contains(doc.Text, "still fine") {
		t.Fatalf("a healthy PDF after the failure: text %q, err %v", doc.Text, err)
	}
}

// The document title lives in a compressed object stream and is a string
// that never ends: the library grows it without bound while resolving the
// object (no check of Footnote's sees that stream). In this process that is
// a fatal "out of memory"; in a child it must be one failed file. (The page
// has no text, so the Go reader has its turn after PDFium.)
func TestIsolatedRunawayAllocationFailsTheFileOnly(t *testing.T) {
	smallExtractors(t, 64<<20, time.Minute)
	objStm := bombStream(t, "/Type /ObjStm /N 1 /First 4", "6 0 (", 1<<30)
	data := rawPDFWithObjectStream(onePage(plainContent("")), objStm.dict, objStm.stream, "/Root 1 0 R /Info 6 0 R")
	path := writeBytes(t, filepath.Join(t.TempDir(), "title-bomb.pdf"), data)
	start := time.Now()
	err := withinTime(t, 2*time.Minute, func() error {
		// 16 times this size limit is below the floor, so the floor applies.
		_, err := Load(File{Path: path}, wordCounter{}, Options{MaxFileBytes: 1 << 20}, testNow)
		return err
	})
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "the PDF reader ran out of memory on this file (limit 64 MiB)") {
		t.Fatalf("err = %v, want the reader's memory limit", err)
	}
	t.Logf("%d-byte file stopped after %s: %v", len(data), time.Since(start).Round(time.Millisecond), err)
	loadsAfter(t)
}

// An object stream that extends itself makes the Go PDF reader look for an
// object for ever, without reading or allocating anything that grows. (The
// page has no text, so PDFium's reading is not kept and the Go reader has
// its turn.)
func TestIsolatedEndlessLoopIsStopped(t *testing.T) {
	smallExtractors(t, 256<<20, 2*time.Second)
	data := rawPDFWithObjectStream(onePage(plainContent("")), "<< /Type /ObjStm /N 0 /First 1 /Extends 5 0 R /Length 1 >>", []byte("x"), "/Root 1 0 R /Info 6 0 R")
	path := writeBytes(t, filepath.Join(t.TempDir(), "loop.pdf"), data)
	err := withinTime(t, time.Minute, func() error {
		_, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow)
		return err
	})
	if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "the PDF reader took longer than 2s on this file, so it was stopped") {
		t.Fatalf("err = %v, want the reader's deadline", err)
	}
	// The healthy file gets the usual budget: a new child built with -race
	// took over 2 s to read it on a loaded two-core machine.
	extractTimeout = func(int64) time.Duration { return time.Minute }
	loadsAfter(t)
}

// Children are kept for the next file rather than started per file.
func TestExtractorChildIsReused(t *testing.T) {
	smallExtractors(t, 256<<20, time.Minute)
	path := writeBytes(t, filepath.Join(t.TempDir(), "a.pdf"), rawPDF(onePage(plainContent("reused")), "/Root 1 0 R"))
	var pids []int
	for range 3 {
		if _, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow); err != nil {
			t.Fatal(err)
		}
		extractors.mu.Lock()
		if len(extractors.idle) != 1 {
			t.Fatalf("%d idle children, want 1", len(extractors.idle))
		}
		pids = append(pids, extractors.idle[0].cmd.Process.Pid)
		extractors.mu.Unlock()
	}
	if pids[0] != pids[1] || pids[1] != pids[2] {
		t.Fatalf("child pids %v, want one child for all three files", pids)
	}
}

// A child that dies while idle (the system's OOM killer, a user's kill) is
// not blamed on the next file.
func TestIdleChildDeathIsNotTheNextFilesFault(t *testing.T) {
	smallExtractors(t, 256<<20, time.Minute)
	path := writeBytes(t, filepath.Join(t.TempDir(), "a.pdf"), rawPDF(onePage(plainContent("next")), "/Root 1 0 R"))
	if _, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow); err != nil {
		t.Fatal(err)
	}
	extractors.mu.Lock()
	w := extractors.idle[0]
	extractors.mu.Unlock()
	w.cmd.Process.Kill()
	<-w.exited
	if doc, err := Load(File{Path: path}, wordCounter{}, Options{}, testNow); err != nil || !strings.Contains(doc.Text, "next") {
		t.Fatalf("after the idle child died: text %q, err %v", doc.Text, err)
	}
}
