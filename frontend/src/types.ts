// Shapes exchanged with the Go side. They are generated from the Go types
// (generated/models.ts, `make types`); this file names them for the UI and
// narrows the few string fields the Go side restricts to a set of values.
import type * as gen from './generated/models';

export type {
  AnswerDoneEvent,
  AnswerErrorEvent,
  AnswerStartEvent,
  AnswerTokenEvent,
  CacheInfo,
  CacheMatch,
  Citation,
  CollectionInfo,
  Contribution,
  DocumentInfo,
  DocumentView,
  EvalProgress,
  EventMap,
  FileStatus,
  GateRefusal,
  IngestProgressEvent,
  LambdaBasis,
  ModelProgressEvent,
  Offsets,
  Provenance,
  PullProgressEvent,
  RetrievalSummary,
  Status,
  Thread,
  ThreadAnswer,
  Usage,
  Verification,
  WatchState,
} from './generated/models';

/** An answer with its citations (Go: rag.Answer). */
export type Answer = gen.Answer;
/** A retrieved passage as Search returns it (Go: rag.Citation). */
export type Hit = gen.Citation;
/** One failed chain-boundary check on an answer's citations (Go: provenance.Issue). */
export type ValidationIssue = gen.Issue;
/** The citation validators' verdict (Go: provenance.Report). */
export type ValidationReport = gen.Report;
/** What an ingest, rescan or collection add did (Go: engine.Summary). */
export type IngestSummary = gen.Summary;
/** A file an ingest skipped or could not index, and why (Go: engine.FileError). */
export type IngestError = gen.FileError;
/** A model installed in Ollama (Go: engine.Model). */
export type ModelInfo = gen.Model;

/** One sentence-level claim of an answer (Go: verify.Claim). */
export type Claim = gen.Claim;
/** A claim with its verdicts against the passages it cites (Go: verify.ClaimResult). */
export type ClaimResult = gen.ClaimResult;
/** One claim against one cited passage (Go: verify.Result). */
export type VerifyResult = gen.Result;
/** The supporting sentence(s) inside a cited passage (Go: verify.Span). */
export type SupportSpan = gen.Span;
/** One hard constraint (number, code, name, negation) and its outcome (Go: verify.Check). */
export type ClaimCheckResult = gen.Check;
/**
 * A claim's or a citation's verdict: 'supported', 'partial', 'unsupported',
 * 'uncited', or '' for a segment that is not a claim (Go: the verify constants).
 */
export type Verdict = ClaimResult['verdict'];

export type RetrievalMode = 'hybrid' | 'lexical' | 'vector';
export type FileState = 'indexed' | 'pending' | 'failed' | 'skipped';

/**
 * What the Settings screen edits (Go: app.UISettings); the Go side accepts
 * only these values for the narrowed fields.
 */
export interface UISettings extends Omit<gen.UISettings, 'retrieval_mode' | 'cross_section' | 'theme'> {
  retrieval_mode: RetrievalMode;
  cross_section: 'allow' | 'forbid';
  theme: 'system' | 'light' | 'dark';
}

export interface SaveResult extends Omit<gen.SaveResult, 'settings'> {
  settings: UISettings;
}
