package engine

import (
	"context"
	"testing"

	"github.com/footnote-app/footnote/backend/cache"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// similarityOnlyLookup is the cache lookup as it was before issue 17
// (similarity, then the cited documents' revisions), kept here only so the
// benchmark can compare the guarded lookup with it in the same run.
func similarityOnlyLookup(ctx context.Context, st *store.Store, key cache.Key, vec []float32) (rag.Answer, bool, error) {
	cands, err := st.CacheCandidates(ctx, key.SettingsHash, key.Model, key.Template)
	if err != nil {
		return rag.Answer{}, false, err
	}
	var best *store.CacheRecord
	bestSim := cache.DefaultThreshold
	for i := range cands {
		if sim := embed.Cosine(vec, cands[i].Embedding); sim >= bestSim {
			best, bestSim = &cands[i], sim
		}
	}
	if best == nil {
		return rag.Answer{}, false, nil
	}
	for doc, rev := range best.Revs {
		now, ok, err := st.DocumentRev(ctx, doc)
		if err != nil || !ok || now != rev {
			return rag.Answer{}, false, err
		}
	}
	rec, ok, err := st.AnswerByID(ctx, best.AnswerID)
	if err != nil || !ok {
		return rag.Answer{}, false, err
	}
	orig, err := rag.FromRecord(rec)
	return orig, err == nil, err
}

// BenchmarkCacheLookup compares the cost of a cache hit before and after
// issue 17 on the sample library (MODEL_SRC or the tiny model), the query
// embedding included or not. The guarded lookup adds SameAsk and the new
// question's own retrieval; that retrieval reuses the question's vector,
// as in a real question (the engine remembers recent query vectors).
func BenchmarkCacheLookup(b *testing.B) {
	ctx := context.Background()
	en := sampleEngine(b)
	if _, err := en.Ingest(ctx, []string{sampleLibrary(b)}, nil); err != nil {
		b.Fatal(err)
	}
	for i, q := range []string{"How do I install Footnote on Linux?", "Where does Footnote keep its data?",
		"Which file formats can Footnote index?", "How do I add a folder to a collection?"} {
		if ans, err := en.Ask(ctx, rag.Request{ID: "seed" + string(rune('a'+i)), Question: q}, nil); err != nil || !ans.Grounded {
			b.Fatalf("seed %q: %v grounded=%v", q, err, ans.Grounded)
		}
	}
	raw, err := embed.Load(ctx, embedtest.Dir(b)) // the model without the engine's memory of recent queries
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { raw.Close() })
	p := en.pipeline()
	key := cache.Key{SettingsHash: en.SettingsHash(), Model: p.Provider + "/" + p.Model, Template: rag.TemplateVersion}
	c := &cache.Cache{Store: en.index()}
	const paraphrase = "how do i install footnote on linux"
	const nearDuplicate = "How do I uninstall Footnote on Linux?"
	vec, err := en.embedder.EmbedQuery(ctx, paraphrase)
	if err != nil {
		b.Fatal(err)
	}
	query := func(q string, v []float32) cache.Query {
		return cache.Query{Key: key, Question: q, Vector: v,
			Evidence: func(ctx context.Context) ([]rag.Citation, error) { return p.PackedEvidence(ctx, q) }}
	}
	if _, _, found, err := c.Lookup(ctx, query(paraphrase, vec)); !found || err != nil {
		b.Fatalf("setup: the paraphrase missed the cache: %v", err)
	}
	nearVec, err := en.embedder.EmbedQuery(ctx, nearDuplicate)
	if err != nil {
		b.Fatal(err)
	}
	_, oldServes, _ := similarityOnlyLookup(ctx, en.index(), key, nearVec)
	b.Logf("%s: the old lookup serves %q the answer to the install question: %v", raw.Info().Name(), nearDuplicate, oldServes)

	b.Run("embed question", func(b *testing.B) {
		for b.Loop() {
			if _, err := raw.EmbedQuery(ctx, paraphrase); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("old lookup/hit", func(b *testing.B) {
		for b.Loop() {
			if _, found, err := similarityOnlyLookup(ctx, en.index(), key, vec); !found || err != nil {
				b.Fatal("miss", err)
			}
		}
	})
	b.Run("guarded lookup/hit", func(b *testing.B) {
		for b.Loop() {
			if _, _, found, err := c.Lookup(ctx, query(paraphrase, vec)); !found || err != nil {
				b.Fatal("miss", err)
			}
		}
	})
	b.Run("guarded lookup/near-duplicate", func(b *testing.B) {
		for b.Loop() {
			if _, _, found, err := c.Lookup(ctx, query(nearDuplicate, nearVec)); found || err != nil {
				b.Fatal("hit", err)
			}
		}
	})
	b.Run("old lookup with embedding/hit", func(b *testing.B) {
		for b.Loop() {
			v, err := raw.EmbedQuery(ctx, paraphrase)
			if err != nil {
				b.Fatal(err)
			}
			if _, found, err := similarityOnlyLookup(ctx, en.index(), key, v); !found || err != nil {
				b.Fatal("miss", err)
			}
		}
	})
	b.Run("guarded lookup with embedding/hit", func(b *testing.B) {
		for b.Loop() {
			v, err := raw.EmbedQuery(ctx, paraphrase)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, found, err := c.Lookup(ctx, query(paraphrase, v)); !found || err != nil {
				b.Fatal("miss", err)
			}
		}
	})
	b.Run("SameAsk", func(b *testing.B) {
		for b.Loop() {
			if !cache.SameAsk("How do I install Footnote on Linux?", paraphrase).Same {
				b.Fatal("not the same")
			}
		}
	})
}
