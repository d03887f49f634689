package ingest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HTML, PDF and the zip- and XML-based formats (DOCX, EPUB, PPTX, XLSX, ODS,
// ODT), RTF and CSV are parsed by code that can allocate,
// recurse or loop without bound on hostile input, and a Go program cannot
// recover from running out of memory or stack. So when the executable opts
// in (RunExtractorIfChild at the top of main), those files are parsed in
// child processes of the same executable, each under a memory limit and a
// deadline. A file that kills its child fails alone with a sentence saying
// why; Footnote itself keeps running and the next file gets a new child.
// Children are reused across files and leave after a while idle.

// isolation is on once RunExtractorIfChild has confirmed that this
// executable can serve as an extractor child.
var isolation atomic.Bool

// Settings of the children; variables so tests can make them small.
var (
	// extractMemoryFloor is the least heap a child may use; files larger
	// than a 16th of it get 16 times their size limit.
	extractMemoryFloor int64 = 1 << 30
	// extractTimeout is how long one file may take to parse.
	extractTimeout = func(size int64) time.Duration {
		return 2*time.Minute + time.Duration(size>>20)*6*time.Second
	}
	// extractIdle is how long an idle child waits for the next file.
	extractIdle = 15 * time.Second
)

func childMemoryLimit(opts Options) int64 {
	return max(extractMemoryFloor, 16*opts.MaxFileBytes)
}

// extractIsolated parses data in a child process. When no child can be
// started (the executable was removed, the system is out of processes) the
// file is parsed here instead, as it would be without isolation.
func extractIsolated(ctx context.Context, data []byte, format string, opts Options) (extracted, error) {
	resp, err := extractInChild(ctx, data, format, opts)
	if errors.Is(err, errNoChild) {
		logNoChild.Do(func() { log.Printf("parsing files in-process: %v", err) })
		return extractReader(data, format, limitsFor(opts))
	}
	if err != nil {
		return extracted{}, err
	}
	return resp.extracted()
}

var (
	errNoChild = errors.New("cannot start an extractor process")
	logNoChild sync.Once
)

// extractInChild sends one file to a child and returns its answer, or an
// error saying how the child failed. When ctx ends the child is killed.
func extractInChild(ctx context.Context, data []byte, format string, opts Options) (extractResponse, error) {
	opts = opts.WithDefaults()
	memLimit := childMemoryLimit(opts)
	timeout := extractTimeout(int64(len(data)))
	w, err := extractors.get(ctx, memLimit)
	if err != nil {
		return extractResponse{}, err
	}
	req := extractRequest{Format: format, Data: data, MaxFileBytes: opts.MaxFileBytes, Timeout: timeout}
	resp, err := w.do(ctx, req, int64(limitsFor(opts).maxText), timeout)
	if errors.Is(err, errChildGone) {
		// The child ended before it took the file (killed while idle,
		// say): not this file's doing, so it gets a new child.
		extractors.discard(w)
		if w, err = extractors.get(ctx, memLimit); err != nil {
			return extractResponse{}, err
		}
		resp, err = w.do(ctx, req, int64(limitsFor(opts).maxText), timeout)
	}
	if err != nil {
		extractors.discard(w)
		return extractResponse{}, err
	}
	extractors.put(w)
	return resp, nil
}

// errChildGone is a child that could not take a request.
var errChildGone = errors.New("the extractor process ended before it read the file")

// extractPool keeps the children: at most one per request in flight, idle
// ones kept for extractIdle.
type extractPool struct {
	mu    sync.Mutex
	idle  []*extractWorker
	slots chan struct{}
}

var extractors = &extractPool{slots: make(chan struct{}, max(2, runtime.GOMAXPROCS(0)))}

// get returns an idle child or starts one, waiting for a free slot; the
// error is errNoChild's or ctx's.
func (p *extractPool) get(ctx context.Context, memLimit int64) (*extractWorker, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, stopped(ctx)
	}
	p.mu.Lock()
	for i, w := range p.idle {
		if w.memLimit == memLimit && !w.gone() {
			p.idle = slices.Delete(p.idle, i, i+1)
			w.idleTimer.Stop()
			p.mu.Unlock()
			return w, nil
		}
	}
	p.mu.Unlock()
	w, err := startExtractor(memLimit)
	if err != nil {
		<-p.slots
		return nil, fmt.Errorf("%w: %v", errNoChild, err)
	}
	return w, nil
}

func (p *extractPool) put(w *extractWorker) {
	p.mu.Lock()
	p.idle = append(p.idle, w)
	w.idleTimer = time.AfterFunc(extractIdle, func() { p.retire(w) })
	p.mu.Unlock()
	<-p.slots
}

// retire stops w if it is still idle.
func (p *extractPool) retire(w *extractWorker) {
	p.mu.Lock()
	i := slices.Index(p.idle, w)
	if i >= 0 {
		p.idle = slices.Delete(p.idle, i, i+1)
	}
	p.mu.Unlock()
	if i >= 0 {
		w.stop()
	}
}

// StopChildren ends the idle parser children and waits for them, so none
// outlives the program (a busy child ends with its file's stop, the idle
// ones otherwise only when they read the end of their input) and their
// resource use is accounted to this process. The engine calls it when it
// closes.
func StopChildren() {
	extractors.mu.Lock()
	idle := extractors.idle
	extractors.idle = nil
	extractors.mu.Unlock()
	for _, w := range idle {
		w.idleTimer.Stop()
		w.stop()
	}
}

func (p *extractPool) discard(w *extractWorker) {
	w.kill()
	<-p.slots
}

// extractWorker is one child: requests go to its stdin, answers come back
// on a pipe of their own (file descriptor 3), so nothing a parser prints
// can garble them; the end of its stderr says how it died.
type extractWorker struct {
	cmd       *exec.Cmd
	stdin     io.WriteCloser
	requests  *bufio.Writer
	replies   *os.File
	replyIn   *bufio.Reader
	stderr    *tailBuffer
	exited    chan struct{}
	memLimit  int64
	idleTimer *time.Timer
}

func startExtractor(memLimit int64) (*extractWorker, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	requestEnd, requests, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	replies, replyEnd, err := os.Pipe()
	if err != nil {
		requestEnd.Close()
		requests.Close()
		return nil, err
	}
	widenPipe(requests)
	widenPipe(replies)
	cmd := exec.Command(exe, extractorArg, strconv.FormatInt(memLimit, 10))
	cmd.Stdin = requestEnd
	cmd.ExtraFiles = []*os.File{replyEnd}
	// Only the reason of a fatal error, not every goroutine's stack, so the
	// reason stays in the tail we keep.
	cmd.Env = append(os.Environ(), "GOTRACEBACK=none")
	tail := &tailBuffer{max: 16 << 10}
	cmd.Stderr = tail
	err = cmd.Start()
	// The child holds its ends now; its exit must end our reads and writes.
	requestEnd.Close()
	replyEnd.Close()
	if err != nil {
		requests.Close()
		replies.Close()
		return nil, err
	}
	w := &extractWorker{cmd: cmd, stdin: requests, requests: bufio.NewWriterSize(requests, 64<<10), replies: replies,
		replyIn: bufio.NewReaderSize(replies, 64<<10), stderr: tail, exited: make(chan struct{}), memLimit: memLimit}
	go func() {
		cmd.Wait()
		requests.Close()
		replies.Close()
		close(w.exited)
	}()
	return w, nil
}

// do sends one request and waits for the answer, at most timeout and until
// ctx ends; an answer's text longer than maxText is a broken child.
func (w *extractWorker) do(ctx context.Context, req extractRequest, maxText int64, timeout time.Duration) (extractResponse, error) {
	type reply struct {
		resp extractResponse
		err  error
	}
	ch := make(chan reply, 1)
	go func() {
		if err := writeFrame(w.requests, req, req.Data); err != nil {
			ch <- reply{err: fmt.Errorf("%w: %v", errChildGone, err)}
			return
		}
		var resp extractResponse
		if err := readHeader(w.replyIn, &resp); err != nil {
			ch <- reply{err: err}
			return
		}
		text, err := readPayloadString(w.replyIn, maxText+1<<20)
		resp.Text = text
		ch <- reply{resp, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	name := strings.ToUpper(req.Format)
	select {
	case r := <-ch:
		if r.err == nil || errors.Is(r.err, errChildGone) {
			return r.resp, r.err
		}
		return extractResponse{}, w.death(name)
	case <-ctx.Done():
		w.kill()
		<-ch
		return extractResponse{}, stopped(ctx)
	case <-timer.C:
		w.kill()
		<-ch // the pipes close with the child
		return extractResponse{}, tooSlow("the %s reader took longer than %s on this file, so it was stopped; re-save or split the file and scan again", name, timeout.Round(time.Second))
	}
}

// death waits for the child to end and says, in a sentence for the user,
// how reading the file killed it.
func (w *extractWorker) death(format string) error {
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
	}
	last := w.stderr.lastLines(3)
	code := -1
	if st := w.cmd.ProcessState; st != nil {
		code = st.ExitCode()
	}
	switch {
	case code == exitOutOfMemory || strings.Contains(last, "out of memory") || strings.Contains(last, "cannot allocate memory") ||
		strings.Contains(last, "address space collisions") || strings.Contains(last, "failed to allocate"): // how race-enabled builds fail to map more
		return overLimit("the %s reader ran out of memory on this file (limit %s), so it was stopped; re-save or split the file and scan again", format, humanBytes(w.memLimit))
	case strings.Contains(last, "stack overflow") || strings.Contains(last, "stack exceeds"):
		return damaged("the %s reader crashed on this file (it nests too deeply); re-save it and scan again", format)
	case code == exitDeadline:
		return tooSlow("the %s reader took too long on this file, so it was stopped; re-save or split the file and scan again", format)
	}
	cause := brief(last)
	if st := w.cmd.ProcessState; cause == "" && st != nil {
		cause = st.String() // "signal: killed", "exit status 2"
	}
	return damaged("the %s reader crashed on this file (%s); re-save it and scan again", format, cause)
}

func (w *extractWorker) gone() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// stop ends an idle child: it exits when its stdin closes.
func (w *extractWorker) stop() {
	w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(5 * time.Second):
		w.kill()
	}
}

func (w *extractWorker) kill() {
	w.cmd.Process.Kill()
	<-w.exited
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

// lastLines returns the last n non-empty lines, joined by "; ". Go's fatal
// errors put the reason on the first line of a trace, so the lines that
// start with "fatal error" or "runtime:" are preferred when present.
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(string(t.b), "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "fatal error") || strings.HasPrefix(l, "runtime:") || strings.HasPrefix(l, "panic:") || strings.HasPrefix(l, "footnote extractor:") {
			return l
		}
		if l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines[max(0, len(lines)-n):], "; ")
}
