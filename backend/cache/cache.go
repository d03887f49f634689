// Package cache owns the semantic answer cache: a previously answered
// question's answer may be served to a new question — always disclosed as
// such — only when all of these hold: the questions' embeddings are close
// enough; they ask the same thing after normalisation (SameAsk: the same
// numbers, codes, names, negations, units, ... and words); the new
// question's own retrieval packs every passage the answer cited, unchanged;
// and the index, model, prompt template and cited documents' revisions are
// the ones it was answered under. Refusals are never cached, and cached
// answers live outside the corpus index, so they can never become evidence.
package cache

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/version"
)

// DefaultThreshold is the cosine similarity a question must reach. It is
// a first filter only: real sentence embeddings put "What does error 52
// mean?" and "What does error 71 mean?" above it, so SameAsk and the
// retrieval check decide.
const DefaultThreshold = 0.95

// Policy is the revalidation policy shown to the user.
const Policy = "Served only to a question that asks the same thing, while its own search still finds the cited passages and every cited document keeps its revision, under the same index, model and prompt template."

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
	// SettingsHash is the index's build settings (not its content: a
	// cached answer survives other documents changing, and its citations
	// are re-resolved against the live index before it is served).
	SettingsHash string
	Model        string
	Template     string
}

// Cache looks up and records answers.
type Cache struct {
	Store     Store
	Threshold float64 // 0 means DefaultThreshold
	// Reverify is the claim re-verification step: when set, it re-checks
	// the cached answer's claims against the passages the new question
	// packed, right before a hit is served. false drops the entry (the
	// question is answered fresh); an error makes the lookup a miss. Nil
	// skips the step, and CacheMatch.Reverified stays false.
	Reverify func(ctx context.Context, cached rag.Answer, packed []rag.Citation) (ok bool, err error)
}

// Query is a new question as the cache looks it up.
type Query struct {
	Key      Key
	Question string
	Vector   []float32 // the question's embedding
	// Evidence returns what the new question's own retrieval packs now. It
	// runs for every candidate that passed the cheaper checks; a hit needs
	// every passage the cached answer cited among it. Nil means no hit.
	Evidence func(ctx context.Context) ([]rag.Citation, error)
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
	rec := store.CacheRecord{AnswerID: a.ID, Question: a.Question, Embedding: vec, IndexHash: key.SettingsHash,
		Model: key.Model, Template: key.Template, Revs: revs, CreatedAt: a.FinishedAt}
	if err := c.Store.PutCache(ctx, rec); err != nil {
		return false, err
	}
	return true, nil
}

// Lookup finds the most similar entry that passes every rule, trying
// candidates above the similarity threshold from the most similar down.
// Entries whose cited documents changed (or were removed) are deleted on
// the way. found is false on a miss.
func (c *Cache) Lookup(ctx context.Context, q Query) (orig rag.Answer, info rag.CacheInfo, found bool, err error) {
	cands, err := c.Store.CacheCandidates(ctx, q.Key.SettingsHash, q.Key.Model, q.Key.Template)
	if err != nil {
		return rag.Answer{}, rag.CacheInfo{}, false, err
	}
	near := c.similar(cands, q.Vector)
	if len(near) == 0 || q.Evidence == nil {
		return rag.Answer{}, rag.CacheInfo{}, false, nil
	}
	ask := parseAsk(q.Question)
	var packed []rag.Citation
	retrieved := false
	for _, cand := range near {
		same := compareAsks(ask, parseAskCached(cand.rec.Question))
		if !same.Same {
			continue
		}
		orig, ok, err := c.unchangedAnswer(ctx, cand.rec)
		if err != nil {
			return rag.Answer{}, rag.CacheInfo{}, false, err
		}
		if !ok {
			continue
		}
		if !retrieved {
			if packed, err = q.Evidence(ctx); err != nil {
				return rag.Answer{}, rag.CacheInfo{}, false, fmt.Errorf("retrieve for the cache check: %w", err)
			}
			retrieved = true
		}
		n, ok := citedPassagesPacked(orig.Citations, packed)
		if !ok {
			continue
		}
		match := rag.CacheMatch{Similarity: true, SameAsk: true, Shared: same.Shared, Passages: true,
			PassagesCited: n, SameIndex: true, Revisions: true}
		if c.Reverify != nil {
			ok, err := c.Reverify(ctx, orig, packed)
			if err != nil {
				return rag.Answer{}, rag.CacheInfo{}, false, fmt.Errorf("re-verify cached answer: %w", err)
			}
			if !ok {
				if err := c.Store.DeleteCache(ctx, cand.rec.AnswerID); err != nil {
					return rag.Answer{}, rag.CacheInfo{}, false, err
				}
				continue
			}
			match.Reverified = true
		}
		info = rag.CacheInfo{Hit: true, OriginalQuestion: orig.Question, OriginalID: orig.ID,
			AnsweredAt: orig.FinishedAt, Similarity: cand.sim, Threshold: c.threshold(), Policy: Policy, Matched: &match}
		return orig, info, true, nil
	}
	return rag.Answer{}, rag.CacheInfo{}, false, nil
}

type candidate struct {
	rec *store.CacheRecord
	sim float64
}

// similar returns the candidates at or above the threshold, most similar
// first.
func (c *Cache) similar(cands []store.CacheRecord, vec []float32) []candidate {
	var near []candidate
	for i := range cands {
		if sim := embed.Cosine(vec, cands[i].Embedding); sim >= c.threshold() {
			near = append(near, candidate{&cands[i], sim})
		}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].sim > near[j].sim })
	return near
}

// unchangedAnswer loads an entry's answer if every document it cited keeps
// its revision; a stale entry is deleted (ok false, no error).
func (c *Cache) unchangedAnswer(ctx context.Context, rec *store.CacheRecord) (rag.Answer, bool, error) {
	fresh, err := c.revsUnchanged(ctx, rec.Revs)
	if err != nil {
		return rag.Answer{}, false, err
	}
	if !fresh {
		return rag.Answer{}, false, c.Store.DeleteCache(ctx, rec.AnswerID)
	}
	stored, ok, err := c.Store.AnswerByID(ctx, rec.AnswerID)
	if err != nil || !ok {
		return rag.Answer{}, false, err
	}
	orig, err := rag.FromRecord(stored)
	if err != nil {
		return rag.Answer{}, false, fmt.Errorf("read cached answer: %w", err)
	}
	return orig, true, nil
}

// citedPassagesPacked reports whether every passage in cited is among
// packed with the same document revision and text, and how many distinct
// passages that was.
func citedPassagesPacked(cited, packed []rag.Citation) (int, bool) {
	now := make(map[string]rag.Citation, len(packed))
	for _, p := range packed {
		now[p.SnippetID] = p
	}
	seen := map[string]bool{}
	for _, c := range cited {
		p, ok := now[c.SnippetID]
		if !ok || p.DocID != c.DocID || p.Rev != c.Rev || p.Text != c.Text {
			return 0, false
		}
		seen[c.SnippetID] = true
	}
	return len(seen), len(seen) > 0
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
	a.TraceID = rag.NewTraceID() // this question's own retrieval found the cited passages
	a.CreatedAt, a.FinishedAt, a.DurationMS = now, now, 0
	a.Usage = rag.Usage{}
	a.Cache = &info
	// This build wrote the record; the original answer (Cache.OriginalID)
	// keeps the build that generated the text.
	a.Version = version.String()
	a.Provenance.DerivationChain = append([]string(nil), orig.Provenance.DerivationChain...)
	a.Provenance.Steps = append(a.Provenance.Steps[:0:0], orig.Provenance.Steps...)
	a.Provenance.MarkCached()
	// The evidence was retrieved for the original question, and its
	// provenance says when; an answer cached before that was recorded gets
	// the time the original was asked.
	retrieved := func(cs []rag.Citation) []rag.Citation {
		out := slices.Clone(cs)
		for i := range out {
			if out[i].Attribution.RetrievedAt.IsZero() {
				out[i].Attribution.RetrievedAt = orig.CreatedAt
			}
		}
		return out
	}
	a.Citations, a.Evidence = retrieved(orig.Citations), retrieved(orig.Evidence)
	if a.Provenance.SourceTimestamp.IsZero() {
		a.Provenance.SourceTimestamp = orig.CreatedAt
	}
	if a.Retrieval.RetrievedAt.IsZero() {
		a.Retrieval.RetrievedAt = orig.CreatedAt
	}
	return a
}
