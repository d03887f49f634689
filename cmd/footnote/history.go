package main

import "github.com/footnote-app/footnote/backend/engine"

// historyRecord is one answer as `history --json` prints it: the stored
// record, tagged with the answer schema and its retrieval trace id.
type historyRecord struct {
	Schema  string `json:"schema"`
	TraceID string `json:"trace_id"`
	engine.AnswerRecord
}

func historyRecords(recs []engine.AnswerRecord) []historyRecord {
	out := make([]historyRecord, len(recs))
	for i, r := range recs {
		out[i] = historyRecord{Schema: engine.AnswerSchema, AnswerRecord: r}
		out[i].TraceID = engine.AnswerFromRecord(r).TraceID
	}
	return out
}
