package engine

// The types the desktop app and the CLI exchange with the engine, named
// here so that they import the engine and no capability package. They are
// aliases: the capability packages stay their one definition.

import (
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/eval"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

type (
	// Answer is a finished (or stopped, or refused) answer with its citations.
	Answer = rag.Answer
	// Citation is one cited (or retrieved) passage with its explain trail.
	Citation = rag.Citation
	// Request is a question to answer.
	Request = rag.Request
	// Sink receives an answer's evidence and tokens while it streams.
	Sink = rag.Sink
	// Verification is the claim-verification outcome of an answer.
	Verification = rag.Verification
	// GateRefusal is what refused a question before the model was called:
	// signal, value, threshold and why.
	GateRefusal = rag.GateRefusal
	// AnswerRecord is an answer as the index stores it.
	AnswerRecord = store.AnswerRecord
	// DocumentInfo is an indexed document without its text.
	DocumentInfo = store.DocumentInfo
	// Collection is a named set of folders and files.
	Collection = store.Collection
	// DocumentSource is an indexed file kept out of evidence by its content.
	DocumentSource = store.DocumentSource
	// SearchOptions tune a retrieval-only search.
	SearchOptions = search.Options
	// SearchResult is a ranked list of passages with its explain trails.
	SearchResult = search.Result
	// Hit is one retrieved passage.
	Hit = search.Hit
	// Provenance is an answer's derivation: tiers, chain and confidence.
	Provenance = provenance.Provenance
	// ValidationReport is the citation validators' verdict on an answer.
	ValidationReport = provenance.Report
	// ClaimResult is one claim of an answer and its verdict.
	ClaimResult = verify.ClaimResult
	// ModelProgress reports an embedding model download.
	ModelProgress = embed.Progress
	// EvalProgress reports a running evaluation.
	EvalProgress = eval.Progress
	// EvalReport is an answer-quality evaluation: metrics, gates, rows.
	EvalReport = eval.AnswerReport
)

// Values the CLI and the app compare answers and hits with.
const (
	VerifyWarn = rag.VerifyWarn
	// AnswerSchema tags every answer record Footnote writes (answer.v1).
	AnswerSchema     = rag.AnswerSchema
	RefusalNoChunks  = rag.RefusalNoChunks
	RefusalScoreGate = rag.RefusalScoreGate
	// RefusalUnanswerable: the best passages hold too few of the question's rare words.
	RefusalUnanswerable = rag.RefusalUnanswerable
	// RefusalNoModel: no answer model could be reached; the answer is the
	// best sentences of the passages that match.
	RefusalNoModel  = rag.RefusalNoModel
	RetrieverVector = search.Vector
	ModeHybrid      = search.ModeHybrid
	// RefusalToken is the conventional refusal of RAG evaluation sets
	// ("not in context"); trace export writes it for every refusal.
	RefusalToken = rag.RefusalToken
	// RefusalValidation: a citation failed a provenance check; the answer's
	// validation report names the code and its fix.
	RefusalValidation = rag.RefusalValidation
)

// CitationFromHit numbers a retrieved passage as citation n.
func CitationFromHit(n int, h Hit) Citation { return rag.CitationFromHit(n, h) }

// DecodeAnswer rebuilds an answer with its details from its stored form.
func DecodeAnswer(r AnswerRecord) (Answer, error) { return rag.FromRecord(r) }
