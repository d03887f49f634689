// Package eval measures retrieval quality against a gold set: for each
// question, the snippet, section or document ids that answer it. It computes
// recall@k, MRR@10 and nDCG@10 and knows nothing about how hits are found,
// so any retriever (or a future answer evaluator) can be scored with it.
package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
)

// Gold is one question and the ids that answer it. A hit is relevant when
// its snippet, section or document id is listed; each listed id counts once,
// however many hits match it.
type Gold struct {
	Question   string   `json:"question"`
	SnippetIDs []string `json:"snippet_ids,omitempty"`
	SectionIDs []string `json:"section_ids,omitempty"`
	DocIDs     []string `json:"doc_ids,omitempty"`
}

// Item is one ranked hit, best first.
type Item struct {
	SnippetID string `json:"snippet_id"`
	SectionID string `json:"section_id"`
	DocID     string `json:"doc_id"`
	// N and Text are a packed passage's marker number and text, as trace
	// export writes them; they let an answer traced without claims be
	// verified for the citation metrics.
	N    int    `json:"n,omitempty"`
	Text string `json:"text,omitempty"`
}

// Scores are one question's metrics.
type Scores struct {
	Recall float64 `json:"recall_at_k"` // share of gold ids matched in the top k
	MRR    float64 `json:"mrr_at_10"`   // 1/rank of the first relevant hit within 10
	NDCG   float64 `json:"ndcg_at_10"`  // binary gains, each gold id credited once
}

// QueryScore is Scores with the question it belongs to.
type QueryScore struct {
	Question string `json:"question"`
	Scores
	Hits int `json:"hits"`
}

// Report is the mean of every question's scores.
type Report struct {
	Queries  int          `json:"queries"`
	K        int          `json:"k"`
	Mean     Scores       `json:"mean"`
	PerQuery []QueryScore `json:"per_query"`
}

// goldKeys lists the gold ids, namespaced so a section and a snippet with
// the same string stay distinct.
func (g Gold) goldKeys() []string {
	var keys []string
	seen := map[string]bool{}
	add := func(prefix string, ids []string) {
		for _, id := range ids {
			if k := prefix + id; id != "" && !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	add("snippet:", g.SnippetIDs)
	add("section:", g.SectionIDs)
	add("doc:", g.DocIDs)
	return keys
}

// newMatches returns the gold keys it satisfies that are not yet credited.
func newMatches(gold map[string]bool, credited map[string]bool, it Item) []string {
	var out []string
	for _, k := range []string{"snippet:" + it.SnippetID, "section:" + it.SectionID, "doc:" + it.DocID} {
		if gold[k] && !credited[k] {
			out = append(out, k)
		}
	}
	return out
}

// Score computes one question's metrics over ranked (best first). Recall
// counts gold ids matched within the top k. A hit's nDCG gain is 1 if it
// matches a gold id no earlier hit matched, else 0; the ideal ranking puts
// min(|gold|, 10) such hits first, so nDCG stays within [0,1].
func Score(g Gold, ranked []Item, k int) Scores {
	keys := g.goldKeys()
	if len(keys) == 0 {
		return Scores{}
	}
	gold := map[string]bool{}
	for _, key := range keys {
		gold[key] = true
	}
	var s Scores
	credited := map[string]bool{}
	var dcg float64
	for i, it := range ranked[:min(len(ranked), 10)] {
		rank := float64(i + 1)
		if s.MRR == 0 && anyMatch(gold, it) {
			s.MRR = 1 / rank
		}
		if matched := newMatches(gold, credited, it); len(matched) > 0 {
			dcg += 1 / math.Log2(rank+1)
			for _, m := range matched {
				credited[m] = true
			}
		}
	}
	inK := map[string]bool{}
	for _, it := range ranked[:min(len(ranked), k)] {
		for _, m := range newMatches(gold, inK, it) {
			inK[m] = true
		}
	}
	s.Recall = float64(len(inK)) / float64(len(keys))
	var idcg float64
	for i := 1; i <= min(len(keys), 10); i++ {
		idcg += 1 / math.Log2(float64(i)+1)
	}
	s.NDCG = dcg / idcg
	return s
}

func anyMatch(gold map[string]bool, it Item) bool {
	return gold["snippet:"+it.SnippetID] || gold["section:"+it.SectionID] || gold["doc:"+it.DocID]
}

// Retrieve returns the ranked hits for a question.
type Retrieve func(ctx context.Context, question string) ([]Item, error)

// Evaluate runs every gold question through retrieve and averages the
// scores. Questions with no gold ids are an error: they cannot be scored.
func Evaluate(ctx context.Context, gold []Gold, k int, retrieve Retrieve) (Report, error) {
	if k <= 0 {
		return Report{}, fmt.Errorf("k must be at least 1, got %d", k)
	}
	rep := Report{K: k}
	for i, g := range gold {
		if len(g.goldKeys()) == 0 {
			return Report{}, fmt.Errorf("gold entry %d (%q) lists no relevant ids", i+1, g.Question)
		}
		ranked, err := retrieve(ctx, g.Question)
		if err != nil {
			return Report{}, fmt.Errorf("retrieve %q: %w", g.Question, err)
		}
		sc := Score(g, ranked, k)
		rep.PerQuery = append(rep.PerQuery, QueryScore{Question: g.Question, Scores: sc, Hits: len(ranked)})
		rep.Mean.Recall += sc.Recall
		rep.Mean.MRR += sc.MRR
		rep.Mean.NDCG += sc.NDCG
	}
	rep.Queries = len(rep.PerQuery)
	if n := float64(rep.Queries); n > 0 {
		rep.Mean.Recall /= n
		rep.Mean.MRR /= n
		rep.Mean.NDCG /= n
	}
	return rep, nil
}

// LoadGold reads a gold set: a JSON array of Gold objects, or one object per
// line (JSON Lines).
func LoadGold(path string) ([]Gold, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read gold set: %w", err)
	}
	gold, err := ParseGold(data)
	if err != nil {
		return nil, fmt.Errorf("gold set %s: %w", path, err)
	}
	return gold, nil
}

// ParseGold parses the LoadGold formats.
func ParseGold(data []byte) ([]Gold, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, errors.New("the gold set is empty; add one question per line")
	}
	var gold []Gold
	if trimmed[0] == '[' {
		if err := json.Unmarshal(trimmed, &gold); err != nil {
			return nil, fmt.Errorf("not a JSON array of questions: %w", err)
		}
		return gold, nil
	}
	for n, line := range strings.Split(string(trimmed), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var g Gold
		if err := json.Unmarshal([]byte(line), &g); err != nil {
			return nil, fmt.Errorf("line %d is not a JSON question object: %w", n+1, err)
		}
		gold = append(gold, g)
	}
	return gold, nil
}
