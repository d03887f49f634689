package provenance

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// Data tiers, 1 authoritative … 4 inferred. Documents the user added are
// tier 1 for their own content; the LLM's synthesis is a tier-4 step.
const (
	TierAuthoritative = 1
	TierUserNote      = 2
	TierSystem        = 3
	TierInferred      = 4
)

// TierOf maps a text unit's source to its data tier.
func TierOf(source string) int {
	switch source {
	case corpus.SourceCorpus:
		return TierAuthoritative
	case corpus.SourceUser:
		return TierUserNote
	case corpus.SourceSystem:
		return TierSystem
	default:
		return TierInferred
	}
}

// Derivation chain steps.
const (
	StepLexical = "FTS5:bm25"
	StepVector  = "Vector:sqlite-vec"
	StepCache   = "Cache:semantic"
)

// StepFusion names the fusion step with its constant.
func StepFusion(k int) string { return fmt.Sprintf("Fusion:RRF(k=%d)", k) }

// StepLLM names the generation step, e.g. LLM:ollama/llama3.2.
func StepLLM(provider, model string) string { return "LLM:" + provider + "/" + model }

// StepVerify names the claim verification step with its mode and
// signals, e.g. Verify:strict(lexical+semantic).
func StepVerify(desc string) string { return "Verify:" + desc }

// StepRerank names a reranking step.
func StepRerank(model string) string { return "Rerank:" + model }

// Attribution says how one citation was found: by which retrievers, at
// which rank in each, what each added to the fused score, when and how fast
// it was retrieved, how close the vector retriever found it and from which
// collection.
type Attribution struct {
	Retrievers  []string       `json:"retrievers"`
	Ranks       map[string]int `json:"ranks"`
	RRF         float64        `json:"rrf_contribution"` // the fused score, sum of 1/(k+rank)
	RetrievedAt time.Time      `json:"retrieved_at"`
	RetrievalMS float64        `json:"retrieval_ms"`
	// VectorSimilarity is the cosine similarity of the question and the
	// passage by the vector retriever (1 − d²/2 of the L2 distance between
	// unit vectors); nil when the vector retriever did not find it.
	VectorSimilarity *float64 `json:"vector_similarity"`
	// Collection is the named collection the passage's document belongs to
	// ("" for a folder or file ingested outside one).
	Collection string `json:"collection"`
	DataTier   int    `json:"data_tier"`
	DataSource string `json:"data_source"`
}

// Step is one link in a derivation chain with its tier: retrieval steps
// carry the tier of what they found, generation is tier 4.
type Step struct {
	Name string `json:"name"`
	Tier int    `json:"tier"`
}

// Provenance is what an answer carries about where it came from. Its JSON
// is snake_case like every shape the UI reads; answers stored before that
// (camelCase keys) still decode (UnmarshalJSON).
type Provenance struct {
	DataSource      string   `json:"data_source"`
	DataTier        int      `json:"data_tier"`
	DerivationChain []string `json:"derivation_chain"`
	Steps           []Step   `json:"steps"`
	// SourceTimestamp is when the evidence was retrieved (for a cached
	// answer: when the original answer's was); IndexedAt when the newest
	// cited passage was indexed, nil when nothing is cited.
	SourceTimestamp time.Time  `json:"source_timestamp"`
	IndexedAt       *time.Time `json:"indexed_at,omitempty"`
	// RevalidationPolicy is when the answer is checked again before it is
	// shown again: on_access (every cache hit revalidates its citations).
	RevalidationPolicy string `json:"revalidation_policy"`
	// LLMProvider and LLMModel name the model that wrote the answer; empty
	// when none was called.
	LLMProvider       string          `json:"llm_provider,omitempty"`
	LLMModel          string          `json:"llm_model,omitempty"`
	SourcesQueried    []string        `json:"sources_queried"`
	TotalRetrieved    int             `json:"total_retrieved"`
	TotalAfterFusion  int             `json:"total_after_fusion"`
	DataTierBreakdown map[int]float64 `json:"data_tier_breakdown"` // tier → share of cited evidence
	ConfidenceScore   float64         `json:"confidence_score"`
}

// provenanceV1 is Provenance as answers stored before the snake_case
// switch spell it.
type provenanceV1 struct {
	DataSource        string          `json:"dataSource"`
	DataTier          int             `json:"dataTier"`
	DerivationChain   []string        `json:"derivationChain"`
	SourceTimestamp   time.Time       `json:"sourceTimestamp"`
	SourcesQueried    []string        `json:"sourcesQueried"`
	TotalRetrieved    int             `json:"totalRetrieved"`
	TotalAfterFusion  int             `json:"totalAfterFusion"`
	DataTierBreakdown map[int]float64 `json:"dataTierBreakdown"`
	ConfidenceScore   float64         `json:"confidenceScore"`
}

// UnmarshalJSON reads both spellings, so history stored by an earlier
// version keeps its provenance.
func (p *Provenance) UnmarshalJSON(b []byte) error {
	type plain Provenance // without this method
	var cur plain
	if err := json.Unmarshal(b, &cur); err != nil {
		return err
	}
	if cur.DataSource == "" && cur.DerivationChain == nil && bytes.Contains(b, []byte(`"dataSource"`)) {
		var old provenanceV1
		if err := json.Unmarshal(b, &old); err != nil {
			return err
		}
		cur.DataSource, cur.DataTier, cur.DerivationChain = old.DataSource, old.DataTier, old.DerivationChain
		cur.SourceTimestamp, cur.SourcesQueried = old.SourceTimestamp, old.SourcesQueried
		cur.TotalRetrieved, cur.TotalAfterFusion = old.TotalRetrieved, old.TotalAfterFusion
		cur.DataTierBreakdown, cur.ConfidenceScore = old.DataTierBreakdown, old.ConfidenceScore
	}
	*p = Provenance(cur)
	return nil
}

// Evidence is one cited unit as aggregation sees it.
type Evidence struct {
	Source    string
	ScoreNorm float64
	CreatedAt time.Time
}

// RevalidateOnAccess is the revalidation policy of every answer: a cached
// answer is re-resolved against the live index each time it is served.
const RevalidateOnAccess = "on_access"

// Inputs describe one answer for aggregation.
type Inputs struct {
	IndexHash        string
	RetrievedAt      time.Time // when retrieval ran
	Retrievers       []string  // search retriever names: "lexical", "vector"
	RRFK             int
	Reranker         string // "" when not reranked
	Provider, Model  string // the LLM; Model "" when the LLM was not called
	TotalRetrieved   int
	TotalAfterFusion int
	Cited            []Evidence
	Segments         []Segment
	Grounded         bool
	Verifier         string // the claim verification step (mode and signals); "" when claims were not verified
}

// TierShareThreshold: the aggregate tier is the worst tier holding more
// than this share of the evidence, so a single weak passage among many
// strong ones does not drag the whole answer down.
const TierShareThreshold = 0.20

// AggregateTier returns the worst tier with more than 20% of the evidence,
// given tier → share. With no evidence the answer is inferred (tier 4).
func AggregateTier(breakdown map[int]float64) int {
	worst := 0
	for tier, share := range breakdown {
		if share > TierShareThreshold && tier > worst {
			worst = tier
		}
	}
	if worst == 0 {
		return TierInferred
	}
	return worst
}

// Breakdown computes each tier's share of the evidence (by count).
func Breakdown(ev []Evidence) map[int]float64 {
	out := map[int]float64{}
	if len(ev) == 0 {
		return out
	}
	for _, e := range ev {
		out[TierOf(e.Source)] += 1 / float64(len(ev))
	}
	return out
}

// Aggregate builds an answer's provenance.
//
// confidenceScore ∈ [0,1] is defined as
//
//	coverage × mean(score_norm of cited passages) × tierFactor
//
// where coverage is the share of the answer's claims (segments that state
// something, see Segment) that cite at least one passage, and tierFactor
// is 1, 0.8, 0.6, 0.4 for aggregate tiers 1..4. An answer that is not
// grounded has confidence 0.
func Aggregate(in Inputs) Provenance {
	p := Provenance{
		DataSource:         "footnote:index/" + in.IndexHash,
		TotalRetrieved:     in.TotalRetrieved,
		TotalAfterFusion:   in.TotalAfterFusion,
		DataTierBreakdown:  Breakdown(in.Cited),
		SourcesQueried:     []string{},
		DerivationChain:    []string{},
		SourceTimestamp:    in.RetrievedAt,
		RevalidationPolicy: RevalidateOnAccess,
	}
	p.DataTier = AggregateTier(p.DataTierBreakdown)
	evTier := p.DataTier
	retr := append([]string(nil), in.Retrievers...)
	sort.Strings(retr)
	for _, r := range retr {
		switch r {
		case "lexical":
			p.addStep(StepLexical, evTier)
			p.SourcesQueried = append(p.SourcesQueried, "fts5")
		case "vector":
			p.addStep(StepVector, evTier)
			p.SourcesQueried = append(p.SourcesQueried, "sqlite-vec")
		}
	}
	if len(retr) > 0 {
		k := in.RRFK
		if k <= 0 {
			k = 60
		}
		p.addStep(StepFusion(k), evTier)
	}
	if in.Reranker != "" {
		p.addStep(StepRerank(in.Reranker), evTier)
	}
	if in.Model != "" {
		p.addStep(StepLLM(in.Provider, in.Model), TierInferred)
		p.LLMProvider, p.LLMModel = in.Provider, in.Model
	}
	if in.Verifier != "" {
		p.addStep(StepVerify(in.Verifier), evTier) // checks the answer against the evidence
	}
	for _, e := range in.Cited {
		if p.IndexedAt == nil || e.CreatedAt.After(*p.IndexedAt) {
			at := e.CreatedAt
			p.IndexedAt = &at
		}
	}
	p.ConfidenceScore = confidence(in, p.DataTier)
	return p
}

func (p *Provenance) addStep(name string, tier int) {
	p.DerivationChain = append(p.DerivationChain, name)
	p.Steps = append(p.Steps, Step{Name: name, Tier: tier})
}

// MarkCached prepends the cache step: a served-from-cache answer's chain
// begins with Cache:semantic, followed by how the original was derived.
func (p *Provenance) MarkCached() {
	if len(p.DerivationChain) > 0 && p.DerivationChain[0] == StepCache {
		return
	}
	p.DerivationChain = append([]string{StepCache}, p.DerivationChain...)
	p.Steps = append([]Step{{Name: StepCache, Tier: p.DataTier}}, p.Steps...)
}

func confidence(in Inputs, tier int) float64 {
	if !in.Grounded || len(in.Cited) == 0 {
		return 0
	}
	var sum float64
	for _, e := range in.Cited {
		sum += e.ScoreNorm
	}
	mean := sum / float64(len(in.Cited))
	// Coverage counts claims only: a heading or a lead-in states nothing
	// that needs a citation.
	coverage, claims, cited := 1.0, 0, 0
	for _, s := range in.Segments {
		if s.NonClaim != "" {
			continue
		}
		claims++
		if len(s.Cites) > 0 {
			cited++
		}
	}
	if claims > 0 {
		coverage = float64(cited) / float64(claims)
	}
	factor := map[int]float64{1: 1, 2: 0.8, 3: 0.6, 4: 0.4}[tier]
	c := coverage * mean * factor
	return min(max(c, 0), 1)
}
