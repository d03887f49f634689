// Package cache owns the semantic answer cache: a question whose embedding
// is close enough to a previously answered one, asked under the same index,
// model and prompt template, and whose cited documents are unchanged, may be
// served the earlier answer — always disclosed as such. Refusals are never
// cached, and cached answers live outside the corpus index, so they can
// never become evidence.
package cache

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// DefaultThreshold is the cosine similarity a question must reach; high,
// because two questions that differ in one word can ask different things.
const DefaultThreshold = 0.95

// Policy is the revalidation policy shown to the user.
const Policy = "Served only while every cited document keeps the revision it had when answered, under the same index, model and prompt template; any change to a cited document invalidates the entry."

// Store is the part of the index the cache uses.
type Store interface {
	PutCache(ctx context.Context, c store.CacheRecord) error
	CacheCandidates(ctx context.Context, indexHash, model, template string) ([]store.CacheRecord, error)
	DeleteCache(ctx context.Context, answerIDs ...string) error
	DocumentRev(ctx context.Context, docID string) (string, bool, error)
	AnswerByID(ctx context.Context, id string) (store.AnswerRecord, bool, error)
}

// Key is what must match exactly for an entry to be usable.
type Key struct {
	IndexHash string
	Model     string
	Template  string
}

// Cache looks up and records answers.
type Cache struct {
	Store     Store
	Threshold float64 // 0 means DefaultThreshold
}

func (c *Cache) threshold() float64 {
	if c.Threshold > 0 {
		return c.Threshold
	}
	return DefaultThreshold
}

// Cacheable reports whether an answer may be cached: grounded, validated,
// complete, not itself served from the cache.
func Cacheable(a rag.Answer) bool {
	return a.Grounded && a.RefusalReason == nil && !a.Stopped && a.Error == "" &&
		len(a.Citations) > 0 && a.Cache == nil && a.Validation.OK
}

// Put records a grounded answer for later questions; other answers are
// skipped (put reports false).
func (c *Cache) Put(ctx context.Context, key Key, vec []float32, a rag.Answer) (put bool, err error) {
	if !Cacheable(a) || len(vec) == 0 {
		return false, nil
	}
	revs := map[string]string{}
	for _, ct := range a.Citations {
		revs[ct.DocID] = ct.Rev
	}
	rec := store.CacheRecord{AnswerID: a.ID, Question: a.Question, Embedding: vec, IndexHash: key.IndexHash,
		Model: key.Model, Template: key.Template, Revs: revs, CreatedAt: a.FinishedAt}
	if err := c.Store.PutCache(ctx, rec); err != nil {
		return false, err
	}
	return true, nil
}

// Lookup finds the most similar usable entry. Entries whose cited documents
// changed (or were removed) are deleted on the way. found is false on a miss.
func (c *Cache) Lookup(ctx context.Context, key Key, vec []float32) (orig rag.Answer, info rag.CacheInfo, found bool, err error) {
	cands, err := c.Store.CacheCandidates(ctx, key.IndexHash, key.Model, key.Template)
	if err != nil {
		return rag.Answer{}, rag.CacheInfo{}, false, err
	}
	var best *store.CacheRecord
	bestSim := c.threshold()
	for i := range cands {
		if sim := Cosine(vec, cands[i].Embedding); sim >= bestSim {
			best, bestSim = &cands[i], sim
		}
	}
	if best == nil {
		return rag.Answer{}, rag.CacheInfo{}, false, nil
	}
	fresh, err := c.revsUnchanged(ctx, best.Revs)
	if err != nil {
		return rag.Answer{}, rag.CacheInfo{}, false, err
	}
	if !fresh {
		return rag.Answer{}, rag.CacheInfo{}, false, c.Store.DeleteCache(ctx, best.AnswerID)
	}
	rec, ok, err := c.Store.AnswerByID(ctx, best.AnswerID)
	if err != nil || !ok {
		return rag.Answer{}, rag.CacheInfo{}, false, err
	}
	orig, err = rag.FromRecord(rec)
	if err != nil {
		return rag.Answer{}, rag.CacheInfo{}, false, fmt.Errorf("read cached answer: %w", err)
	}
	info = rag.CacheInfo{Hit: true, OriginalQuestion: orig.Question, OriginalID: orig.ID,
		AnsweredAt: orig.FinishedAt, Similarity: bestSim, Threshold: c.threshold(), Policy: Policy}
	return orig, info, true, nil
}

func (c *Cache) revsUnchanged(ctx context.Context, revs map[string]string) (bool, error) {
	for doc, rev := range revs {
		now, ok, err := c.Store.DocumentRev(ctx, doc)
		if err != nil {
			return false, err
		}
		if !ok || now != rev {
			return false, nil
		}
	}
	return true, nil
}

// Serve turns the original answer into the answer to req, disclosed as
// cached: its derivation chain begins with Cache:semantic.
func Serve(orig rag.Answer, req rag.Request, info rag.CacheInfo, now time.Time) rag.Answer {
	a := orig
	a.ID, a.RequestID, a.Question = "ans_"+req.ID, req.ID, req.Question
	a.CreatedAt, a.FinishedAt, a.DurationMS = now, now, 0
	a.Usage = rag.Usage{}
	a.Cache = &info
	a.Provenance.DerivationChain = append([]string(nil), orig.Provenance.DerivationChain...)
	a.Provenance.Steps = append(a.Provenance.Steps[:0:0], orig.Provenance.Steps...)
	a.Provenance.MarkCached()
	return a
}

// Cosine is the cosine similarity of two vectors (0 when either is empty
// or their lengths differ).
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
