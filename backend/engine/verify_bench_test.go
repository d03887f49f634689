package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/footnote-app/footnote/backend/verify"
)

// BenchmarkVerifyWithIndexStats verifies an answer of 8 claims against 8
// passages of the indexed sample library with the engine's verifier (term
// statistics from the keyword index, the embedding model for undecided
// pairs). cold drops the cached word frequencies before every answer, so
// each word costs one index query; warm is a library whose words were seen
// before; count-stats replaces the index by counting the packed passages.
//
//	go test -tags sqlite_fts5 -run '^$' -bench VerifyWithIndexStats ./backend/engine
func BenchmarkVerifyWithIndexStats(b *testing.B) {
	en := sampleEngine(b)
	ctx := context.Background()
	if _, err := en.Ingest(ctx, []string{sampleLibrary(b)}, nil); err != nil {
		b.Fatal(err)
	}
	questions := []string{"How do I install Footnote on Linux?", "When does an answer count as grounded?",
		"What is the name of the SQLite file that holds the index?", "How long are the passages Footnote splits documents into?",
		"Which keyboard shortcut focuses the question box?", "How do I create a collection from the command line?",
		"What does footnote doctor check?", "Does Footnote send my documents or questions anywhere?"}
	var passages []verify.Passage
	var texts []string
	answer := ""
	for i, q := range questions {
		res, err := en.Search(ctx, q, searchOpts())
		if err != nil || len(res.Hits) == 0 {
			b.Fatalf("search %q: %v", q, err)
		}
		h := res.Hits[0]
		passages = append(passages, verify.Passage{N: i + 1, Text: h.Text, Start: h.Offsets.Start, Context: h.Title})
		texts = append(texts, h.Text)
		// The claim is the passage's longest sentence, cited: supported by construction.
		claims := verify.Claims(h.Text, "")
		best := ""
		for _, c := range claims {
			if c.Checkable() && len(c.Plain) > len(best) {
				best = c.Plain
			}
		}
		answer += fmt.Sprintf("%s [#%d] ", best, i+1)
	}
	shared := en.verifier()
	for _, c := range []struct {
		name string
		v    func() *verify.Verifier
	}{
		{"cold", func() *verify.Verifier {
			shared.Stats.(*indexStats).mu.Lock()
			shared.Stats.(*indexStats).freq = map[string]int{}
			shared.Stats.(*indexStats).mu.Unlock()
			return shared
		}},
		{"warm", func() *verify.Verifier { return shared }},
		{"count-stats", func() *verify.Verifier {
			return &verify.Verifier{Stats: verify.NewCountStats(texts...), Embedder: en.embedder, SemanticOnlyIfUndecided: true}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			run := func() {
				claims := verify.Claims(answer, "", texts...)
				res, err := c.v().VerifyAnswer(ctx, claims, passages)
				if err != nil {
					b.Fatal(err)
				}
				if s := verify.Summarize(res); s.Claims < 8 || s.Unsupported+s.Uncited > 0 {
					b.Fatalf("benchmark answer not verified: %+v", s)
				}
			}
			run() // warm up the model
			b.ResetTimer()
			for range b.N {
				run()
			}
		})
	}
}
