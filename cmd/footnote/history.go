package main

import (
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
)

// historyRecord is one answer as `history --json` prints it: the stored
// record, tagged with the answer schema and its retrieval trace id.
type historyRecord struct {
	Schema  string `json:"schema"`
	TraceID string `json:"trace_id"`
	store.AnswerRecord
}

func historyRecords(recs []store.AnswerRecord) []historyRecord {
	out := make([]historyRecord, len(recs))
	for i, r := range recs {
		out[i] = historyRecord{Schema: rag.AnswerSchema, AnswerRecord: r}
		if a, err := rag.FromRecord(r); err == nil {
			out[i].TraceID = a.TraceID
		}
	}
	return out
}
