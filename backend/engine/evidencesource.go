package engine

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

// Model-made text never becomes evidence, by content too: at ingest every
// parsed document is checked for the signatures of a chat, an exported
// answer, Footnote's own prompt (verify.Detector) and verbatim runs of a
// stored answer (verify.AnswerPrints). Such a document is indexed with
// source model (or user, for the user's side of a chat), which retrieval
// and the citation validators never take as evidence; the reason is stored
// for the Library. The user can say to treat a file as a document anyway;
// the choice is kept by path in the index (and carried over by rebuilds).

// reuseAnswers is how many of the newest stored answers a document is
// compared with; it bounds the work of one ingest run.
const reuseAnswers = 500

// sourceClassifier decides the source of the documents of one ingest run.
// The stored answers are read once, at the first document that needs them.
type sourceClassifier struct {
	detector *verify.Detector
	prints   func(ctx context.Context) (*verify.AnswerPrints, error)

	once    sync.Once
	answers *verify.AnswerPrints
	err     error
}

func (e *Engine) newSourceClassifier() *sourceClassifier {
	return &sourceClassifier{detector: promptDetector(), prints: e.storedAnswerPrints}
}

// answerPrintsCache keeps the hashed stored answers between ingest runs
// (building them costs a few hundred ms, see
// BenchmarkStoredAnswerCheckSetup) until an answer is stored or replaced.
type answerPrintsCache struct {
	mu     sync.Mutex
	stamp  string
	prints *verify.AnswerPrints
}

// storedAnswerPrints returns the word runs of the newest stored answers.
// Answers live in the live index, also while a rebuild fills a new one.
func (e *Engine) storedAnswerPrints(ctx context.Context) (*verify.AnswerPrints, error) {
	st := e.index()
	stamp, err := st.AnswersStamp(ctx)
	if err != nil {
		return nil, err
	}
	c := &e.reuse
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prints != nil && c.stamp == stamp {
		return c.prints, nil
	}
	recs, err := st.Answers(ctx, reuseAnswers)
	if err != nil {
		return nil, fmt.Errorf("read stored answers to compare documents with: %w", err)
	}
	c.prints, c.stamp = verify.NewAnswerPrints(storedAnswers(recs)), stamp
	return c.prints, nil
}

var promptDetector = sync.OnceValue(func() *verify.Detector { return verify.NewDetector(rag.SystemPrompt()) })

func (c *sourceClassifier) answerPrints(ctx context.Context) (*verify.AnswerPrints, error) {
	c.once.Do(func() { c.answers, c.err = c.prints(ctx) })
	return c.answers, c.err
}

// storedAnswers turns answer records into what the reuse check needs. A
// record that cannot be read contributes its text without passages.
func storedAnswers(recs []store.AnswerRecord) []verify.StoredAnswer {
	out := make([]verify.StoredAnswer, 0, len(recs))
	for _, r := range recs {
		a := verify.StoredAnswer{ID: r.ID, Text: r.Answer}
		if ans, err := rag.FromRecord(r); err == nil {
			for _, c := range ans.Evidence {
				a.Passages = append(a.Passages, c.Text)
			}
			for _, c := range ans.Citations {
				a.Passages = append(a.Passages, c.Text)
			}
		}
		out = append(out, a)
	}
	return out
}

// detect says what doc's content looks like. The detectors read the whole
// text and take no context; on a text of megabytes they run for seconds,
// so a stop (Ctrl-C, closing the app) does not wait for them: a detection
// cut short finishes on its own and is dropped.
func (c *sourceClassifier) detect(ctx context.Context, text string) (verify.Detection, error) {
	type result struct {
		d   verify.Detection
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := c.detectText(ctx, text)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.d, r.err
	case <-ctx.Done():
		return verify.Detection{}, ctx.Err()
	}
}

func (c *sourceClassifier) detectText(ctx context.Context, text string) (verify.Detection, error) {
	d := c.detector.Detect(text)
	if d.Source != corpus.SourceCorpus {
		return d, nil
	}
	prints, err := c.answerPrints(ctx)
	if err != nil {
		return d, err
	}
	if id, words, ok := prints.Reproduces(text); ok {
		d.Source = corpus.SourceModel
		d.Reason = fmt.Sprintf("reproduces a stored answer (%d words verbatim of answer %s)", words, id)
		d.Cues = append(d.Cues, "stored answer text")
	}
	return d, nil
}

// classify records on doc what its content looks like and, unless the user
// said to treat the file as a document, indexes its chunks with that source.
func (c *sourceClassifier) classify(ctx context.Context, st *store.Store, doc *corpus.Document) error {
	d, err := c.detect(ctx, doc.Text)
	if err != nil {
		return err
	}
	if d.Source == corpus.SourceCorpus {
		return nil
	}
	doc.DetectedSource, doc.DetectedReason = d.Source, d.Reason
	override, err := st.EvidenceOverride(ctx, doc.Path)
	if err != nil || override {
		return err
	}
	for i := range doc.Chunks {
		doc.Chunks[i].Source = d.Source
	}
	return nil
}

// keptOutOfEvidence reports whether doc was indexed as non-evidence because
// of its content (and no override).
func keptOutOfEvidence(doc corpus.Document) bool {
	return doc.DetectedSource != "" && doc.DetectedSource != corpus.SourceCorpus &&
		len(doc.Chunks) > 0 && doc.Chunks[0].Source != corpus.SourceCorpus
}

// KeptOutOfEvidence lists the indexed files whose content looks like a chat
// or an answer, with the reason and whether the user overrode it.
func (e *Engine) KeptOutOfEvidence(ctx context.Context) ([]store.DocumentSource, error) {
	if err := e.Ready(ctx); err != nil {
		return nil, err
	}
	return e.index().DocumentSources(ctx)
}

// TreatAsDocument sets (on) or clears (off) the user's override for the
// indexed file at path: treated as a document, its text is evidence even
// though its content looks like a chat or an answer. The file is indexed
// again at once (its vectors are reused), and the choice survives rescans
// and index rebuilds.
func (e *Engine) TreatAsDocument(ctx context.Context, path string, on bool) (Summary, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return newSummary(), fmt.Errorf("treat %s as a document: %w", path, err)
	}
	abs = filepath.Clean(abs)
	return e.runLocked(ctx, "", nil, func(ctx context.Context, st *store.Store, sum *Summary) error {
		if _, found, err := st.StoredDocument(ctx, corpus.DocID(abs)); err != nil {
			return err
		} else if !found {
			return fmt.Errorf("%s is not in the index: %w; add it to the library first", abs, ErrNotIndexed)
		}
		if err := st.SetEvidenceOverride(ctx, abs, on, e.clock.Now()); err != nil {
			return err
		}
		return st.Enqueue(ctx, []store.QueueItem{{Path: abs, Op: store.OpIndex}})
	})
}

// ErrNotIndexed is returned for a file the index does not hold.
var ErrNotIndexed = errors.New("file not indexed")

// ContentCheck says that an indexed file's content looks like a chat or an
// answer: kept out of evidence, unless the user treats it as a document.
type ContentCheck struct {
	Source     string `json:"source"` // what it looks like: model or user
	Reason     string `json:"reason"`
	Overridden bool   `json:"overridden"` // treated as a document: its text is evidence
}

// markContentChecks adds to the indexed files the ones kept out of evidence
// by their content.
func (e *Engine) markContentChecks(ctx context.Context, files map[string]*FileStatus) error {
	kept, err := e.KeptOutOfEvidence(ctx)
	if err != nil {
		return err
	}
	for _, k := range kept {
		if f, ok := files[k.Path]; ok && f.DocID == k.DocID {
			f.ContentCheck = &ContentCheck{Source: k.Source, Reason: k.Reason, Overridden: k.Overridden}
		}
	}
	return nil
}
