package ingest

import (
	"context"
	"errors"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Time budgets. Every step of reading a file is bounded in time, so no
// file can stall ingest: the parser child by extractTimeout (isolate.go),
// the programs it runs (pdftotext, pdftoppm, tesseract) by the same
// timeout and memory limit (childproc.go), and chunking by chunkTimeout.
// A step past its budget fails with an error matching ErrTooSlow, which
// the engine takes as a reason to set the file aside until it changes or
// the user asks for another try. Embedding and writing need no budget of
// their own: every chunk is bounded in tokens and bytes, so their cost is
// linear in the text.

// chunkTimeout bounds splitting a text of n bytes into chunks. Chunking
// is linear in the length, at under 1 CPU-second a megabyte for prose,
// one long line, minified JSON or a run without spaces, but about 24 for
// base64 on one line (BenchmarkChunkShapes: the tokenizer reads its short
// runs of random letters a few characters a token). The budget leaves
// base64 a loaded machine's margin: 10 s a MB set a 2 MB blob aside after
// 26 CPU-s in 156 s on two cores shared with a dozen busy processes. A
// stall grows with the square of the length, so this still catches one.
var chunkTimeout = func(n int) time.Duration {
	return time.Minute + time.Duration(n>>20)*time.Minute
}

// chunkWithin runs chunk with chunkTimeout(n) to do its work, turning the
// deadline into an ErrTooSlow error and the end of ctx into a stop.
func chunkWithin(ctx context.Context, n int, chunk func(context.Context) ([]corpus.Section, []corpus.Chunk, error)) ([]corpus.Section, []corpus.Chunk, error) {
	budget := chunkTimeout(n)
	cctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	secs, chunks, err := chunk(cctx)
	switch {
	case err == nil:
		return secs, chunks, nil
	case ctx.Err() != nil:
		return nil, nil, stopped(ctx)
	case errors.Is(err, context.DeadlineExceeded):
		return nil, nil, tooSlow("splitting its %s of text into passages took longer than %s, so it was stopped; split the file and scan again", humanBytes(int64(n)), budget.Round(time.Second))
	}
	return nil, nil, err
}

// childCaps are the limits every process reading a file runs under: the
// parser child's memory limit and time budget for a file of its size.
type childCaps struct {
	memory  int64
	timeout time.Duration
}

func capsFor(opts Options, size int) childCaps {
	return childCaps{memory: childMemoryLimit(opts.WithDefaults()), timeout: extractTimeout(int64(size))}
}
