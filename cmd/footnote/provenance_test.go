package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

// askedJSON is what these tests read of ask --json.
type askedJSON struct {
	Grounded   bool `json:"grounded"`
	Provenance struct {
		SourceTimestamp    time.Time  `json:"source_timestamp"`
		IndexedAt          *time.Time `json:"indexed_at"`
		RevalidationPolicy string     `json:"revalidation_policy"`
		DerivationChain    []string   `json:"derivation_chain"`
		LLMModel           string     `json:"llm_model"`
	} `json:"provenance"`
	Retrieval struct {
		RetrievedAt time.Time `json:"retrieved_at"`
	} `json:"retrieval"`
	Citations []struct {
		Attribution struct {
			RetrievedAt      time.Time `json:"retrieved_at"`
			VectorSimilarity *float64  `json:"vector_similarity"`
			Collection       string    `json:"collection"`
			Retrievers       []string  `json:"retrievers"`
		} `json:"attribution"`
	} `json:"citations"`
	Nearest []struct {
		Attribution struct {
			RetrievedAt time.Time `json:"retrieved_at"`
		} `json:"attribution"`
	} `json:"nearest"`
	Cache *struct {
		AnsweredAt time.Time `json:"answered_at"`
	} `json:"cache"`
}

func askJSONOf(t *testing.T, args ...string) askedJSON {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"ask", "--json"}, args...)...)
	var a askedJSON
	if code != 0 || json.Unmarshal([]byte(out), &a) != nil {
		t.Fatalf("ask %v: exit %d %s %s", args, code, out, errOut)
	}
	return a
}

// Provenance is complete on a refusal (when its evidence was retrieved, not
// year 1) and on a cached answer: every citation says when it was
// retrieved, how close the vector retriever found it and from which
// collection, and the answer when it is revalidated.
func TestProvenanceOfRefusalsAndCachedAnswers(t *testing.T) {
	fake := ollamafake.New()
	defer fake.Close()
	_, lib := setup(t, fake.URL())
	if code, _, errOut := runCLI(t, "collection", "add", "manuals", lib); code != 0 {
		t.Fatalf("collection add: %s", errOut)
	}
	refused := askJSONOf(t, "zzzz qqqq")
	if refused.Grounded || refused.Provenance.SourceTimestamp.Year() < 2000 ||
		!refused.Provenance.SourceTimestamp.Equal(refused.Retrieval.RetrievedAt) || refused.Provenance.RevalidationPolicy != "on_access" {
		t.Errorf("refusal provenance: %+v retrieved at %v", refused.Provenance, refused.Retrieval.RetrievedAt)
	}
	for _, n := range refused.Nearest {
		if !n.Attribution.RetrievedAt.Equal(refused.Retrieval.RetrievedAt) {
			t.Errorf("nearest passage retrieved at %v", n.Attribution.RetrievedAt)
		}
	}

	first := askJSONOf(t, "How do I install on Linux?")
	if !first.Grounded || len(first.Citations) == 0 || first.Provenance.IndexedAt == nil || first.Provenance.LLMModel == "" {
		t.Fatalf("first answer: %+v", first)
	}
	cached := askJSONOf(t, "How do I install on Linux?")
	if cached.Cache == nil {
		t.Fatal("the repeat was not served from the cache")
	}
	if !cached.Provenance.SourceTimestamp.Equal(first.Retrieval.RetrievedAt) || cached.Provenance.DerivationChain[0] != "Cache:semantic" {
		t.Errorf("cached provenance: %+v, want the original retrieval time %v", cached.Provenance, first.Retrieval.RetrievedAt)
	}
	sawVector := false
	for _, c := range cached.Citations {
		a := c.Attribution
		sawVector = sawVector || a.VectorSimilarity != nil
		if !a.RetrievedAt.Equal(first.Retrieval.RetrievedAt) || a.Collection != "manuals" {
			t.Errorf("cached citation attribution: %+v", a)
		}
		vector := strings.Contains(strings.Join(a.Retrievers, ","), "vector")
		if vector != (a.VectorSimilarity != nil) || a.VectorSimilarity != nil && (*a.VectorSimilarity < -1 || *a.VectorSimilarity > 1) {
			t.Errorf("vector similarity %v for retrievers %v", a.VectorSimilarity, a.Retrievers)
		}
	}
	if !sawVector {
		t.Error("no cited passage carries the vector retriever's similarity")
	}
}
