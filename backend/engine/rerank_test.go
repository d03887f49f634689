package engine

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/rerank"
	"github.com/footnote-app/footnote/backend/search"
)

// rerankLibrary has one passage holding every word of rerankQuery once
// among other words, and passages that repeat one query word, which
// keyword and bag-of-words retrieval rank high but a cross-encoder scoring
// query coverage ranks low.
const rerankQuery = "backup database server password"

func rerankLibrary(t *testing.T) string {
	t.Helper()
	return writeFiles(t, map[string]string{
		"all.md":      "# Maintenance\n\nBefore the yearly review the team wrote down how to backup the database, which server holds it, and where the password for the account is kept, together with many other notes about the office.\n",
		"backup.md":   "# Backup\n\nBackup, backup, backup: the backup runs every night and every backup is checked.\n",
		"database.md": "# Database\n\nThe database is small. Database tables hold the database rows; the database file is one file.\n",
		"server.md":   "# Server\n\nThe server is in the server room. Server logs go to the server disk.\n",
		"garden.md":   "# Garden\n\nThe garden has a tree, a flower bed and a small pond with fish.\n",
	})
}

func newRerankEngine(t *testing.T, host string, configure func(*config.Settings), opts ...Option) *Engine {
	t.Helper()
	en := newEngineWith(t, host, configure, append([]Option{WithEmbedder(loadTestEmbedder(t))}, opts...)...)
	if _, err := en.Ingest(context.Background(), []string{rerankLibrary(t)}, nil); err != nil {
		t.Fatal(err)
	}
	return en
}

func snippetIDs(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.SnippetID
	}
	return out
}

func TestConfiguredRerankerReordersSearchAndAnswers(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	en := newRerankEngine(t, fake.URL(), func(s *config.Settings) {
		s.RerankModelDir = embedtest.CrossEncoderDir(t)
	})
	ctx := context.Background()

	plain, err := en.Search(ctx, rerankQuery, search.Options{NoRerank: true})
	if err != nil {
		t.Fatal(err)
	}
	res, err := en.Search(ctx, rerankQuery, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Reranker != "" || slices.ContainsFunc(plain.Hits, func(h search.Hit) bool { return h.RerankScore != nil }) {
		t.Fatalf("NoRerank search was reranked: %+v", plain)
	}
	if !strings.HasPrefix(res.Reranker, filepath.Base(embedtest.CrossEncoderDir(t))+"@") {
		t.Errorf("result does not name the reranker: %q", res.Reranker)
	}
	// Same candidates, new order: the passage with every query word first.
	if !slices.Equal(slices.Sorted(slices.Values(snippetIDs(res.Hits))), slices.Sorted(slices.Values(snippetIDs(plain.Hits)))) {
		t.Fatalf("reranking changed the candidates: %v vs %v", snippetIDs(res.Hits), snippetIDs(plain.Hits))
	}
	if slices.Equal(snippetIDs(res.Hits), snippetIDs(plain.Hits)) {
		t.Fatalf("reranking kept the fused order %v", snippetIDs(plain.Hits))
	}
	if !strings.Contains(res.Hits[0].Path, "all.md") {
		t.Errorf("top reranked hit is %s, want the passage with every query word", res.Hits[0].Path)
	}
	for i, h := range res.Hits {
		if h.RerankScore == nil || h.KFinal != i+1 {
			t.Fatalf("hit %d: rerank_score %v k_final %d", i, h.RerankScore, h.KFinal)
		}
		if i > 0 && *h.RerankScore > *res.Hits[i-1].RerankScore {
			t.Errorf("hit %d scores above hit %d", i+1, i)
		}
	}

	ans, err := en.Ask(ctx, rag.Request{ID: "rr1", Question: rerankQuery}, &tokens{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Evidence) == 0 || ans.Evidence[0].RerankScore == nil || !strings.Contains(ans.Evidence[0].Path, "all.md") {
		t.Fatalf("answer evidence not reranked: %+v", ans.Evidence)
	}
	if !slices.Contains(ans.Provenance.DerivationChain, "Rerank:"+res.Reranker) {
		t.Errorf("derivation chain lacks the rerank step: %v", ans.Provenance.DerivationChain)
	}

	checks := en.Doctor(ctx)
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == "reranker" })
	if i < 0 || !checks[i].OK || !strings.Contains(checks[i].Detail, res.Reranker) {
		t.Errorf("doctor reranker check: %+v", checks)
	}
}

func TestRerankerOffByDefault(t *testing.T) {
	en := newRerankEngine(t, "127.0.0.1:1", func(*config.Settings) {})
	ctx := context.Background()
	a, err := en.Search(ctx, rerankQuery, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := en.Search(ctx, rerankQuery, search.Options{NoRerank: true})
	if err != nil {
		t.Fatal(err)
	}
	if a.Reranker != "" || !slices.EqualFunc(a.Hits, b.Hits, func(x, y search.Hit) bool {
		return x.SnippetID == y.SnippetID && x.KFinal == y.KFinal && x.RerankScore == nil && y.RerankScore == nil
	}) {
		t.Fatalf("without a reranker, search must be unchanged: %v vs %v", snippetIDs(a.Hits), snippetIDs(b.Hits))
	}
	if name, err := en.RerankerStatus(ctx); name != "" || err != nil {
		t.Errorf("status %q, %v", name, err)
	}
	if slices.ContainsFunc(en.Doctor(ctx), func(c Check) bool { return c.Name == "reranker" }) {
		t.Error("doctor reports a reranker that is off")
	}
}

func TestBrokenRerankerFolderLeavesSearchWorking(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-model")
	en := newRerankEngine(t, "127.0.0.1:1", func(s *config.Settings) { s.RerankModelDir = missing })
	ctx := context.Background()
	res, err := en.Search(ctx, rerankQuery, search.Options{})
	if err != nil || len(res.Hits) == 0 || res.Reranker != "" {
		t.Fatalf("search with a broken reranker: %v %+v", err, res)
	}
	_, err = en.RerankerStatus(ctx)
	if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), config.EnvRerankModel) {
		t.Errorf("status error should name the folder and the setting: %v", err)
	}
	checks := en.Doctor(ctx)
	i := slices.IndexFunc(checks, func(c Check) bool { return c.Name == "reranker" })
	if i < 0 || checks[i].OK || checks[i].Fix == "" {
		t.Errorf("doctor should flag the reranker: %+v", checks)
	}
}

func TestInjectedRerankerAppliesToTopN(t *testing.T) {
	r := rerank.Fake{Score: func(_, p string) float32 { return -float32(len(p)) }} // shortest first
	en := newRerankEngine(t, "127.0.0.1:1", func(s *config.Settings) { s.RerankTop = 2 }, WithReranker(r))
	res, err := en.Search(context.Background(), rerankQuery, search.Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) != 1 || res.Reranker != "fake" || res.Hits[0].RerankScore == nil {
		t.Fatalf("limit 1 after reranking the top 2: %+v", res.Hits)
	}
	all, err := en.Search(context.Background(), rerankQuery, search.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range all.Hits {
		if (h.RerankScore != nil) != (i < 2) {
			t.Errorf("hit %d: rerank_score %v, want one only on the top 2", i+1, h.RerankScore)
		}
	}
	if all.Hits[0].SnippetID != res.Hits[0].SnippetID {
		t.Errorf("a smaller limit changed the reranked winner: %s vs %s", res.Hits[0].SnippetID, all.Hits[0].SnippetID)
	}
}
