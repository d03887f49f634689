package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
)

// The queue is drained by a three-stage pipeline: a pool of parse workers
// (one per core) hashes and parses files, an embed stage batches chunks of
// several documents into one model call, and a single writer commits each
// document in its own transaction (SQLite has one writer anyway).
var (
	// parseWorkers is the number of files read and parsed at once.
	parseWorkers = runtime.GOMAXPROCS(0)
	// embedWorkers is the number of model calls in flight; the embedder
	// parallelises inside a call, so a second call only fills its gaps.
	embedWorkers = 2
	// embedBatchTexts is how many chunks, across documents, go to the model
	// in one call.
	embedBatchTexts = 64
	// queueRound is how many queued paths one pipeline round takes.
	queueRound = 512
	// loadFile reads one file into a document (a variable so tests can
	// make a step overrun its time budget).
	loadFile = ingest.LoadData
)

type jobKind int

const (
	jobIndex     jobKind = iota // write doc with vectors
	jobUnchanged                // same content hash: nothing to do
	jobMoved                    // unchanged content, new collection
	jobVanished                 // the file is gone: remove its document
	jobFailed                   // err says why
)

type job struct {
	item       store.QueueItem
	kind       jobKind
	err        error
	doc        corpus.Document
	vectors    [][]float32
	missing    []int // chunks that need embedding
	collection string
	notes      []string // remarks on how the file was read (ingest.LoadWithNotes)
}

// run tracks one drain for the summary and progress events.
type run struct {
	sum        *Summary
	progress   func(Progress)
	collection string
	start      time.Time
	done       int
	total      int
	sources    *sourceClassifier // what each parsed document's content looks like
}

func (r *run) report(current string, done bool) {
	if r.progress == nil {
		return
	}
	p := Progress{FilesDone: r.done, FilesTotal: r.total, Chunks: r.sum.ChunksEmbedded,
		Current: current, Done: done, Collection: r.collection}
	if secs := time.Since(r.start).Seconds(); secs > 0 && r.done > 0 {
		p.FilesPerSec = float64(r.done) / secs
		if !done && r.total > r.done {
			p.ETAMS = int64(float64(r.total-r.done) / p.FilesPerSec * 1000)
		}
	}
	r.progress(p)
}

// drain processes the queue until it is empty or ctx ends. Callers hold
// ingestMu. Work not yet committed stays queued for the next run.
func (e *Engine) drain(ctx context.Context, st *store.Store, collection string, progress func(Progress), sum *Summary) error {
	r := &run{sum: sum, progress: progress, collection: collection, start: time.Now(), sources: e.newSourceClassifier()}
	// Files a process died parsing count one crash more (crashguard.go).
	if _, err := st.QueueCountCrashes(ctx, ownerAlive); err != nil {
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("ingest cancelled: %w", err)
		}
		items, err := st.QueueNext(ctx, queueRound)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			break
		}
		pending, err := st.QueueLen(ctx)
		if err != nil {
			return err
		}
		r.total = r.done + pending
		var index, suspects, del []store.QueueItem
		for _, it := range items {
			switch {
			case it.Op == store.OpDelete:
				del = append(del, it)
			case it.Crashes > 0:
				suspects = append(suspects, it)
			default:
				index = append(index, it)
			}
		}
		// A file that was being parsed when a process died is read again
		// alone, so a crash is blamed on the file that caused it, not on
		// one parsed beside it.
		for _, it := range suspects {
			if err := e.indexItems(ctx, st, r, []store.QueueItem{it}); err != nil {
				return err
			}
		}
		// Index before deleting, so a renamed file finds its old document
		// (same content hash) and reuses its vectors.
		if err := e.indexItems(ctx, st, r, index); err != nil {
			return err
		}
		for _, it := range del {
			if err := e.deleteItem(ctx, st, r, it); err != nil {
				return err
			}
		}
	}
	r.report("", true)
	return nil
}

func (e *Engine) indexItems(ctx context.Context, st *store.Store, r *run, items []store.QueueItem) error {
	if len(items) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := make(chan store.QueueItem)
	parsed := make(chan *job, parseWorkers)
	toWrite := make(chan *job, parseWorkers)
	go func() {
		defer close(in)
		for _, it := range items {
			select {
			case in <- it:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range parseWorkers {
		wg.Go(func() {
			for it := range in {
				parsed <- e.prepare(ctx, st, it, r.sources)
			}
		})
	}
	go func() { wg.Wait(); close(parsed) }()
	go e.embedStage(ctx, parsed, toWrite)

	// Every stage keeps consuming until its input closes, so stopping early
	// only means skipping work, never a blocked goroutine.
	var firstErr error
	for j := range toWrite {
		if firstErr != nil || ctx.Err() != nil {
			continue
		}
		if err := e.write(ctx, st, r, j); err != nil {
			firstErr = err
			cancel()
		}
	}
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil {
		return fmt.Errorf("ingest cancelled: %w", ctx.Err())
	}
	return nil
}

// prepare hashes the file and, only when its content changed, parses it and
// finds which chunks need embedding.
func (e *Engine) prepare(ctx context.Context, st *store.Store, it store.QueueItem, sources *sourceClassifier) *job {
	j := &job{item: it}
	fail := func(err error) *job { j.kind, j.err = jobFailed, err; return j }
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	opts := e.ingestOptions()
	// The path may have become a folder, a FIFO or a device since it was
	// queued: ReadFile opens without blocking, checks the open file and
	// reads no more than the size limit. The bytes hashed are the bytes
	// parsed.
	data, err := ingest.ReadFile(it.Path, opts)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		j.kind = jobVanished
		return j
	case err != nil:
		return fail(err)
	}
	docID := corpus.DocID(it.Path)
	stored, found, err := st.StoredDocument(ctx, docID)
	if err != nil {
		return fail(err)
	}
	j.collection = it.Collection
	if j.collection == "" && found {
		j.collection = stored.Collection // a plain ingest does not take a file out of its collection
	}
	rev := corpus.Rev(data)
	if found && stored.Rev == rev {
		j.kind = jobUnchanged
		if stored.Collection != j.collection {
			j.kind = jobMoved
		}
		return j
	}
	if err := e.crashGuard(ctx, st, it, rev); err != nil {
		return fail(err)
	}

	files, skips, err := e.scanTracked(ctx, st, it.Path) // the scan rules hold at read time too
	if err != nil {
		return fail(err)
	}
	if len(files) != 1 {
		reason := "not a supported file"
		if len(skips) > 0 {
			reason = skips[0].Reason
		}
		return fail(errors.New(reason))
	}
	var notes []string
	started := time.Now()
	doc, err := guardedParse(ctx, st, it, func() (corpus.Document, error) {
		doc, n, err := loadFile(ctx, files[0], data, e.embedder, opts, e.clock.Now())
		notes = n
		return doc, err
	})
	data = nil // the document holds the text now; don't keep the bytes too
	if errors.Is(err, ingest.ErrTooSlow) && ctx.Err() == nil {
		err = e.setAside(ctx, st, it.Path, rev, err)
	}
	if err != nil {
		return fail(err)
	}
	if took := time.Since(started); took > slowRead {
		notes = append(notes, slowReadNote(took, len(doc.OCRPages)))
	}
	doc.Collection = j.collection
	if err := sources.classify(ctx, st, &doc); err != nil {
		return fail(err)
	}
	j.doc, j.kind, j.notes = doc, jobIndex, notes
	j.vectors = make([][]float32, len(doc.Chunks))
	if len(doc.Chunks) == 0 {
		return j
	}
	reuse := map[string][]float32{}
	model := e.EmbedModel()
	if found {
		if reuse, err = st.ChunkVectorsByText(ctx, docID, model); err != nil {
			return fail(err)
		}
	}
	if !allCovered(doc, reuse) {
		// A renamed or copied file: same content under another path.
		twins, err := st.DocumentsWithRev(ctx, doc.Rev)
		if err != nil {
			return fail(err)
		}
		for _, t := range twins {
			if t.DocID == docID {
				continue
			}
			vecs, err := st.ChunkVectorsByText(ctx, t.DocID, model)
			if err != nil {
				return fail(err)
			}
			for k, v := range vecs {
				reuse[k] = v
			}
			break
		}
	}
	for i, c := range doc.Chunks {
		if v, ok := reuse[corpus.IndexText(c.Context, c.Text)]; ok {
			j.vectors[i] = v
		} else {
			j.missing = append(j.missing, i)
		}
	}
	return j
}

// slowRead is how long reading one file may take before the ingest report
// says so: a file that takes longer is either large or, with OCR, scanned.
const slowRead = 30 * time.Second

func slowReadNote(took time.Duration, ocrPages int) string {
	note := fmt.Sprintf("reading it took %s", took.Round(time.Second))
	if ocrPages > 0 {
		note += fmt.Sprintf(" (%d pages read by OCR)", ocrPages)
	}
	return note
}

func allCovered(doc corpus.Document, reuse map[string][]float32) bool {
	for _, c := range doc.Chunks {
		if _, ok := reuse[corpus.IndexText(c.Context, c.Text)]; !ok {
			return false
		}
	}
	return true
}

// embedStage batches the chunks of several documents into one model call.
// A batch is sent when it is full or when no parsed document is waiting,
// so a slow parse never holds finished documents back.
func (e *Engine) embedStage(ctx context.Context, in <-chan *job, out chan<- *job) {
	defer close(out)
	batches := make(chan []*job)
	var wg sync.WaitGroup
	for range embedWorkers {
		wg.Go(func() {
			for b := range batches {
				e.embedBatch(ctx, b)
				for _, j := range b {
					out <- j
				}
			}
		})
	}
	var batch []*job
	texts := 0
	flush := func() {
		if len(batch) > 0 {
			batches <- batch
			batch, texts = nil, 0
		}
	}
	for {
		var j *job
		var ok bool
		select {
		case j, ok = <-in:
		default:
			flush()
			j, ok = <-in
		}
		if !ok {
			break
		}
		if len(j.missing) == 0 {
			out <- j
			continue
		}
		batch = append(batch, j)
		texts += len(j.missing)
		if texts >= embedBatchTexts {
			flush()
		}
	}
	flush()
	close(batches)
	wg.Wait()
}

func (e *Engine) embedBatch(ctx context.Context, batch []*job) {
	if e.absentModel() != nil {
		return // lexical-only: the chunks are stored without vectors, added when a model arrives (lexicalonly.go)
	}
	var texts []string
	for _, j := range batch {
		for _, i := range j.missing {
			c := j.doc.Chunks[i]
			texts = append(texts, corpus.IndexText(c.Context, c.Text)) // what is embedded: context, then text
		}
	}
	vecs, err := e.embedder.EmbedPassages(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("the embedding model returned %d vectors for %d passages", len(vecs), len(texts))
	}
	k := 0
	for _, j := range batch {
		if err != nil {
			j.kind, j.err = jobFailed, fmt.Errorf("embed: %w", err)
			continue
		}
		for _, i := range j.missing {
			j.vectors[i] = vecs[k]
			k++
		}
	}
}

// write commits one job and removes it from the queue. Only errors that stop
// the whole run are returned; a failed file is recorded and skipped.
func (e *Engine) write(ctx context.Context, st *store.Store, r *run, j *job) error {
	path := j.item.Path
	switch j.kind {
	case jobFailed:
		if ctx.Err() != nil {
			return ctx.Err() // cancelled: leave it queued
		}
		r.sum.FilesFailed++
		// The report names the file beside the reason: the reason need not
		// name it again.
		r.sum.Errors = append(r.sum.Errors, FileError{Path: path, Error: strings.TrimPrefix(j.err.Error(), "load "+path+": ")})
	case jobVanished:
		if err := st.DeleteDocument(ctx, corpus.DocID(path)); err != nil {
			return err
		}
		r.sum.FilesDeleted++
	case jobUnchanged:
		r.sum.FilesUnchanged++
	case jobMoved:
		if err := st.SetDocumentCollection(ctx, corpus.DocID(path), j.collection); err != nil {
			return err
		}
		r.sum.FilesUnchanged++
	case jobIndex:
		if err := st.PutDocument(ctx, j.doc, j.vectors, e.EmbedModel()); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// A full disk or read-only folder is not this file's fault:
			// stop the run and leave the file queued for when it clears.
			if se := (*store.StorageError)(nil); errors.As(err, &se) {
				return err
			}
			r.sum.FilesFailed++
			r.sum.Errors = append(r.sum.Errors, FileError{Path: path, Error: err.Error()})
			break
		}
		r.sum.FilesIndexed++
		for _, n := range j.notes {
			r.sum.Notes = append(r.sum.Notes, FileError{Path: path, Error: n})
		}
		if keptOutOfEvidence(j.doc) {
			r.sum.FilesKeptOut++
		}
		if e.absentModel() == nil {
			r.sum.ChunksEmbedded += len(j.missing)
		}
		r.sum.ChunksReused += len(j.doc.Chunks) - len(j.missing)
	}
	if err := st.QueueDone(ctx, j.item); err != nil {
		return err
	}
	r.done++
	r.report(path, false)
	return nil
}

// deleteItem removes the documents at or under a queued path whose files
// are gone or are no longer accepted (e.g. became binary, or a link leading
// out of their folder).
func (e *Engine) deleteItem(ctx context.Context, st *store.Store, r *run, it store.QueueItem) error {
	docs, err := st.DocumentsUnder(ctx, it.Path)
	if err != nil {
		return err
	}
	for _, d := range docs {
		if e.stillIndexable(ctx, st, d.Path) {
			continue
		}
		if err := st.DeleteDocument(ctx, d.DocID); err != nil {
			return err
		}
		r.sum.FilesDeleted++
	}
	if err := st.QueueDone(ctx, it); err != nil {
		return err
	}
	r.done++
	r.report(it.Path, false)
	return nil
}
