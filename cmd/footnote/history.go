package main

import "github.com/footnote-app/footnote/backend/engine"

// historyRecord is one answer as `history --json` prints it: the stored
// record, tagged with the answer schema, its retrieval trace id and the
// Footnote build that wrote it (empty for answers stored before builds were
// recorded).
type historyRecord struct {
	Schema          string `json:"schema"`
	TraceID         string `json:"trace_id"`
	FootnoteVersion string `json:"footnote_version"`
	engine.AnswerRecord
}

func historyRecords(recs []engine.AnswerRecord) []historyRecord {
	out := make([]historyRecord, len(recs))
	for i, r := range recs {
		out[i] = historyRecord{Schema: engine.AnswerSchema, AnswerRecord: r}
		a := engine.AnswerFromRecord(r)
		out[i].TraceID, out[i].FootnoteVersion = a.TraceID, a.Version
	}
	return out
}
