package rag

import (
	"crypto/rand"
	"encoding/hex"
)

// AnswerSchema tags every answer record Footnote writes (ask --json,
// history, trace export), so a reader knows which shape it holds.
const AnswerSchema = "answer.v1"

// NewTraceID returns a fresh retrieval trace id. One answer carries it in
// its record, its trace line, its audit log lines and its rag_traces rows,
// so it can be followed through all of them.
func NewTraceID() string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return "tr_" + hex.EncodeToString(b[:])
}
