package ingest

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"time"
)

// extractorArg is the first argument of an extractor child; the second is
// its memory limit in bytes.
const extractorArg = "--footnote-extractor"

// Exit codes of a child that stopped itself.
const (
	exitOutOfMemory = 3
	exitDeadline    = 4
)

// extractorMaxStack bounds a child's goroutine stacks far below Go's 1 GB
// default, so runaway recursion ends quickly and is reported as such.
const extractorMaxStack = 64 << 20

// RunExtractorIfChild must be the first call in main (and in TestMain of
// packages whose tests parse rich formats). In a process started as an
// extractor child it serves files until its input ends and exits; in any
// other process it returns at once, and from then on rich formats are
// parsed in such children.
func RunExtractorIfChild() {
	if len(os.Args) >= 3 && os.Args[1] == extractorArg {
		os.Exit(serveExtractions(os.Args[2]))
	}
	isolation.Store(true)
}

// serveExtractions reads requests from stdin and answers on descriptor 3
// (isolate_wire.go) until stdin closes.
func serveExtractions(limitArg string) int {
	memLimit, err := strconv.ParseInt(limitArg, 10, 64)
	if err != nil || memLimit <= 0 {
		fmt.Fprintf(os.Stderr, "footnote extractor: invalid memory limit %q\n", limitArg)
		return 1
	}
	// The collector works to stay under three quarters of the limit; the
	// watchdog stops the child at the limit; the address-space limit stops
	// a single huge allocation before the system has to. PDFium gets a
	// quarter, so a file that fills it and then goes to the Go reader
	// leaves that reader most of the limit.
	debug.SetMemoryLimit(memLimit / 4 * 3)
	pdfiumMemoryLimit = memLimit / 4
	debug.SetMaxStack(extractorMaxStack)
	limitAddressSpace(memLimit)
	go watchHeap(memLimit)
	replies := os.NewFile(3, "extractor replies")
	if replies == nil {
		fmt.Fprintln(os.Stderr, "footnote extractor: no reply pipe")
		return 1
	}
	out := bufio.NewWriterSize(replies, 64<<10)
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	// After a big file, pages go back to the system once the child has been
	// idle a moment; doing it after every file would make the next one
	// fault them all in again.
	release := time.AfterFunc(time.Hour, debug.FreeOSMemory)
	release.Stop()
	for {
		var req extractRequest
		err := readHeader(in, &req)
		release.Stop()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			fmt.Fprintf(os.Stderr, "footnote extractor: read request: %v\n", err)
			return 1
		}
		data, err := readPayload(in, Options{MaxFileBytes: req.MaxFileBytes}.WithDefaults().MaxFileBytes)
		if err != nil {
			fmt.Fprintf(os.Stderr, "footnote extractor: read request: %v\n", err)
			return 1
		}
		req.Data = data
		resp := serveOne(req)
		if err := writeFrame(out, resp, []byte(resp.Text)); err != nil {
			fmt.Fprintf(os.Stderr, "footnote extractor: send reply: %v\n", err)
			return 1
		}
		if len(data) > 1<<20 {
			release.Reset(time.Second)
		}
	}
}

func serveOne(req extractRequest) extractResponse {
	resetPeakRSS()
	// The parent stops a child that overruns; this covers a parent that
	// died meanwhile.
	deadline := time.AfterFunc(req.Timeout+10*time.Second, func() {
		fmt.Fprintln(os.Stderr, "footnote extractor: deadline passed")
		os.Exit(exitDeadline)
	})
	defer deadline.Stop()
	opts := Options{MaxFileBytes: req.MaxFileBytes}.WithDefaults()
	ex, err := extractReader(req.Data, req.Format, limitsFor(opts))
	resp := responseOf(ex, err)
	resp.PeakRSS = peakRSS()
	return resp
}

// watchHeap stops the child when its heap passes limit. Allocation that
// grows step by step (a string that never ends, a stack of operands) is
// caught here; one huge allocation fails in the runtime or at the
// address-space limit.
func watchHeap(limit int64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for range time.Tick(10 * time.Millisecond) {
		metrics.Read(sample)
		if used := sample[0].Value.Uint64(); used > uint64(limit) {
			fmt.Fprintf(os.Stderr, "footnote extractor: out of memory (%d bytes in use, limit %d)\n", used, limit)
			os.Exit(exitOutOfMemory)
		}
	}
}
