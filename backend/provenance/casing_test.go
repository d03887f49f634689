package provenance

import (
	"encoding/json"
	"strings"
	"testing"
)

// Provenance crosses to the UI in snake_case like every other shape, and an
// answer stored with the earlier camelCase keys still shows its provenance.
func TestProvenanceJSONIsSnakeCaseAndReadsOldKeys(t *testing.T) {
	p := Provenance{DataSource: "user_documents", DataTier: 1, DerivationChain: []string{"retrieve", "fuse"},
		TotalRetrieved: 4, DataTierBreakdown: map[int]float64{1: 1}, ConfidenceScore: 0.8}
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"data_source"`, `"data_tier"`, `"derivation_chain"`, `"total_retrieved"`, `"data_tier_breakdown"`, `"confidence_score"`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("%s missing from %s", key, raw)
		}
	}
	var back Provenance
	if err := json.Unmarshal(raw, &back); err != nil || back.DataSource != p.DataSource || back.ConfidenceScore != p.ConfidenceScore || len(back.DerivationChain) != 2 {
		t.Errorf("round trip: %+v (%v)", back, err)
	}
	old := `{"dataSource":"user_documents","dataTier":1,"derivationChain":["retrieve"],"steps":[{"name":"retrieve","tier":1}],"totalRetrieved":3,"dataTierBreakdown":{"1":1},"confidenceScore":0.7}`
	var stored Provenance
	if err := json.Unmarshal([]byte(old), &stored); err != nil {
		t.Fatal(err)
	}
	if stored.DataSource != "user_documents" || stored.DataTier != 1 || len(stored.DerivationChain) != 1 || len(stored.Steps) != 1 ||
		stored.TotalRetrieved != 3 || stored.DataTierBreakdown[1] != 1 || stored.ConfidenceScore != 0.7 {
		t.Errorf("camelCase record lost fields: %+v", stored)
	}
}
