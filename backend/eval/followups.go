package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
)

// Follow-up items carry the earlier questions of their thread; they are
// asked as follow-ups (rewritten into a standalone question first) and
// reported apart as well as pooled.

// followUpRequest is the request for item q on run: a follow-up when q has
// a history.
func followUpRequest(q QA, run int, question string) rag.Request {
	req := rag.Request{ID: fmt.Sprintf("eval-%s-%d", q.QID, run), Question: question}
	for _, h := range q.History {
		req.History = append(req.History, rag.Turn{Question: h})
	}
	return req
}

// rankedFor is the retrieval the metrics score for question.
func rankedFor(ctx context.Context, en Answerer, question string, opts LiveOptions) ([]Item, error) {
	limit := max(opts.K, 10)
	res, err := en.Search(ctx, question, search.Options{Mode: opts.Mode, Limit: limit, TopK: max(limit, 20), Collections: opts.Collections})
	if err != nil {
		return nil, err
	}
	ranked := make([]Item, len(res.Hits))
	for i, h := range res.Hits {
		ranked[i] = Item{SnippetID: h.SnippetID, SectionID: h.SectionID, DocID: h.DocID}
	}
	return ranked, nil
}

// followUpMetrics computes the metrics over the follow-up rows; nil when
// there are none.
func followUpMetrics(rows []Row, k int) *Metrics {
	var fu []Row
	for _, r := range rows {
		if r.FollowUp {
			fu = append(fu, r)
		}
	}
	if len(fu) == 0 {
		return nil
	}
	m := Compute(fu, k)
	return &m
}

func writeFollowUps(b *strings.Builder, m *Metrics) {
	if m == nil {
		return
	}
	fmt.Fprintf(b, "\nFollow-up questions (%d, %d answerable): precision %.3f · over_refusal %.3f · under_refusal %.3f · citation_hit_rate %.3f\n",
		m.Questions, m.Answerable, m.Precision, m.OverRefusal, m.UnderRefusal, m.CitationHitRate)
}
