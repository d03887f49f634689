// Shapes exchanged with the Go side; they mirror docs/ui-contract.md field for field.

export interface Offsets {
  start: number;
  end: number;
  unit: 'char';
}

export interface Citation {
  n: number;
  doc_id: string;
  section_id: string;
  snippet_id: string;
  source_url: string;
  title: string;
  path: string;
  offsets: Offsets;
  tokens: number;
  score_norm: number;
  text: string;
  /** PDF page the passage is on (1-based); absent for other formats. */
  page?: number;
  /** Rank after fusion. */
  k_final?: number;
  /** Document revision the passage was indexed from. */
  rev?: string;
  embed_model?: string;
  /** Retrievers that found the passage, with their ranks before fusion. */
  explain?: Contribution[] | null;
  /** Identity of the index build the passage came from. */
  index_hash?: string;
  /** Text analyzer the index was written with. */
  analyzer?: string;
  /** 1 authoritative … 4 inferred; the user's own documents are tier 1. */
  data_tier?: number;
  /** The document changed since this passage was indexed. */
  stale?: boolean;
  score_raw?: number;
  rerank_score?: number;
  /** Best rank any retriever gave the passage before fusion. */
  k_pos?: number;
  window?: { pre: number; post: number };
  source?: string;
  /** When the passage was indexed (RFC 3339). */
  created_at?: string;
}

/** One failed chain-boundary check on an answer's citations. */
export interface ValidationIssue {
  code: string;
  severity: 'error' | 'warning';
  n?: number;
  seg?: number;
  message: string;
  /** One line telling the user what to do. */
  fix: string;
}

export interface ValidationReport {
  ok: boolean;
  issues: ValidationIssue[] | null;
}

/** Disclosure that an answer was served from the semantic answer cache. */
export interface CacheInfo {
  hit: boolean;
  original_question: string;
  original_id: string;
  answered_at: string;
  similarity: number;
  threshold: number;
  /** The revalidation policy, in words. */
  policy: string;
  /** Which of the cache's rules this hit met (absent on older cached answers). */
  matched?: CacheMatch | null;
}

/** The answer cache's rules, and whether a hit met each (a hit needs all but reverified). */
export interface CacheMatch {
  /** The questions' embeddings reached the threshold. */
  similarity: boolean;
  /** Same content and anchors (numbers, codes, names, negations, units, ...) after normalisation. */
  same_ask: boolean;
  /** Anchors both questions name, e.g. "number 52", "identifier A-100". */
  shared: string[] | null;
  /** This question's own search packs every cited passage, unchanged. */
  passages: boolean;
  passages_cited: number;
  /** Same index, answer model and prompt template. */
  same_index: boolean;
  /** Every cited document keeps its revision. */
  revisions: boolean;
  /** The answer's claims were re-verified against the current passages. */
  reverified: boolean;
}

export interface Provenance {
  dataSource: string;
  dataTier: number;
  derivationChain: string[] | null;
  confidenceScore: number;
  /** The chain's steps with the data tier of each (provenance.Step). */
  steps?: { name: string; tier: number }[] | null;
  sourcesQueried?: string[] | null;
  totalRetrieved?: number;
  totalAfterFusion?: number;
}

export interface Contribution {
  retriever: string;
  score_raw: number;
  /** Rank before fusion (1-based). */
  k_pos: number;
  rrf: number;
}

export interface Usage {
  prompt_tokens: number;
  answer_tokens: number;
  eval_ns?: number;
}

export interface RetrievalSummary {
  mode: string;
  k: number;
  gate: number;
  top_score: number;
  returned: number;
  used: number;
  /** Share of the question's rare words the best passages hold (answerability); absent when not checked. */
  rare_term_share?: number;
  rare_terms?: string[];
}

export interface Answer {
  request_id: string;
  question: string;
  answer: string;
  grounded: boolean;
  refusal_reason: string | null;
  citations: Citation[] | null;
  model: string;
  embed_model: string;
  stopped: boolean;
  duration_ms: number;
  id?: string;
  /** Best candidates below the score gate, shown with a refusal. */
  nearest?: Citation[] | null;
  evidence?: Citation[] | null;
  usage?: Usage;
  retrieval?: RetrievalSummary;
  created_at?: string;
  /** Why generation ended early (an error, or the answer length limit); the partial text is kept. */
  error?: string;
  /** Generation ended before the answer was complete; answer holds what arrived. */
  incomplete?: boolean;
  index_hash?: string;
  validation?: ValidationReport;
  provenance?: Provenance;
  /** Set when the answer was served from the cache. */
  cache?: CacheInfo | null;
  /** How the answer's claims fared against the passages they cite (absent when verification is off). */
  verification?: Verification | null;
  /** Every segment of the answer with its verdict (absent when verification is off). */
  claims?: ClaimResult[] | null;
}

/** Claim verification summary (Go: rag.Verification). */
export interface Verification {
  mode: 'strict' | 'warn';
  claims: number;
  supported: number;
  partial: number;
  unsupported: number;
  uncited: number;
  citations: number;
  supporting: number;
  failing: number[] | null;
  /** One line per failing claim, e.g. "not supported by [#2]: the passage says 20 MB, the claim says 40 MB". */
  reasons?: string[] | null;
  elapsed_ms: number;
  error?: string;
}

// ---- Claim verification (hand-written until types are generated from Go;
// they match backend/verify's JSON exactly: ClaimResult, Claim, Result, Span,
// Signals, Check). ----

/** A claim's or a citation's verdict; "" for a segment that is not a claim. */
export type Verdict = 'supported' | 'partial' | 'unsupported' | 'uncited' | '';

/** One sentence-level segment of an answer (verify.Claim). */
export interface Claim {
  /** The segment as written, markers included. */
  text: string;
  /** What is checked: markers and Markdown removed. */
  plain: string;
  /** Byte offsets in the answer (UTF-8). */
  start: number;
  end: number;
  /** The same range in code points: Array.from(answer).slice(char_start, char_end). */
  char_start: number;
  char_end: number;
  kind: string;
  markers: number[] | null;
  inherited: boolean;
  echoed: number[] | null;
  /** "" for a checkable claim, otherwise why it is not one. */
  non_claim: string;
}

/** The supporting text found in a passage (verify.Span). */
export interface SupportSpan {
  /** Code points in the document's stored text, like citation offsets. */
  offsets: { start: number; end: number; unit?: string };
  text: string;
  sentences: number;
  /** Byte offsets into the passage text. */
  passage_start: number;
  passage_end: number;
}

/** A hard constraint (number, date, code, name, negation) and its outcome (verify.Check). */
export interface ClaimCheckResult {
  kind: string;
  claim: string;
  passage?: string;
  detail?: string;
  ok: boolean;
}

/** Every value a verdict was computed from (verify.Signals). */
export interface Signals {
  lexical: number;
  semantic?: number;
  cosine?: number;
  baseline?: number;
  entailment?: number;
  clauses?: number[];
  checks?: ClaimCheckResult[];
  missing?: string[];
}

/** One claim against one cited passage (verify.Result). */
export interface VerifyResult {
  n: number;
  span: SupportSpan;
  score: number;
  verdict: Verdict;
  reason?: string;
  signals: Signals;
}

/** The outcome for one segment of an answer (verify.ClaimResult). */
export interface ClaimResult {
  claim: Claim;
  /** One per covering marker, in marker order. */
  results: VerifyResult[] | null;
  verdict: Verdict;
  score: number;
  reason?: string;
}

// ---- end of claim verification types ----

export interface Hit {
  rank: number;
  score_norm: number;
  doc_id: string;
  section_id: string;
  snippet_id: string;
  source_url: string;
  title: string;
  path: string;
  offsets: Offsets;
  tokens: number;
  text: string;
}

export interface Status {
  /** True while the embedding model is still loading; the UI polls until it is false. */
  loading: boolean;
  ready: boolean;
  embed_model: string;
  embed_error: string;
  llm_model: string;
  ollama_host: string;
  ollama_error: string;
  documents: number;
  chunks: number;
  data_dir: string;
  index_hash: string;
  /** The model server is not on this machine: questions and passages leave it. */
  remote?: boolean;
}

export interface IngestError {
  path: string;
  error: string;
}

export interface IngestSummary {
  files_seen: number;
  files_indexed: number;
  files_unchanged: number;
  files_skipped: number;
  files_failed: number;
  files_deleted?: number;
  chunks_embedded: number;
  errors: IngestError[] | null;
  skipped?: IngestError[] | null;
  duration_ms: number;
}

export interface DocumentInfo {
  doc_id: string;
  title: string;
  path: string;
  format: string;
  rev: string;
  chunks: number;
  indexed_at: string;
}

/** An indexed document with the stored text citation offsets point into. */
export interface DocumentView extends DocumentInfo {
  text: string;
  /** Length of text in Unicode code points. */
  chars: number;
}

export type RetrievalMode = 'hybrid' | 'lexical' | 'vector';

/** A collection on the library screen (app.CollectionInfo); name "" holds documents outside any collection. */
export interface CollectionInfo {
  name: string;
  paths: string[] | null;
  documents: number;
  chunks: number;
  created_at: string;
  /** Newest document's indexed time; null when none. */
  last_indexed_at: string | null;
  pending: number;
  failed: number;
  /** The folder watch covers its folders. */
  watched: boolean;
}

export type FileState = 'indexed' | 'pending' | 'failed' | 'skipped';

/** One file of a collection with its state (app.FileStatus). */
export interface FileStatus {
  path: string;
  status: FileState;
  reason?: string;
  doc_id?: string;
  title?: string;
  format?: string;
  chunks: number;
  indexed_at?: string;
}

export interface WatchState {
  watching: boolean;
  roots: string[] | null;
  pending: number;
  error: string;
}

/** What the Settings screen edits (app.UISettings). */
export interface UISettings {
  ollama_host: string;
  llm_model: string;
  embed_model_dir: string;
  score_gate: number;
  evidence_k: number;
  top_k: number;
  /** "ollama" or "openai" (any OpenAI-compatible server); applies after a restart. */
  provider: string;
  openai_base_url: string;
  retrieval_mode: RetrievalMode;
  answer_cache: boolean;
  cross_section: 'allow' | 'forbid';
  theme: 'system' | 'light' | 'dark';
  /** Index what links inside a folder point to outside it (off: skipped with a reason). */
  follow_outside_links?: boolean;
  /** Longest answer in tokens: sent to the model server and enforced while streaming. */
  max_answer_tokens: number;
  /** Sent only with a save the user confirmed: passages may go to a model server on another machine. */
  confirm_remote?: boolean;
  settings_path: string;
  /** Settings an environment variable overrides. */
  overridden: string[] | null;
}

export interface SaveResult {
  settings: UISettings;
  /** Setting names that apply only after a restart. */
  restart_required: string[] | null;
}

/** A model installed in Ollama. */
export interface ModelInfo {
  name: string;
  size: number;
  parameter_size: string;
  modified_at: string;
}

export interface PullProgressEvent {
  model: string;
  status: string;
  completed: number;
  total: number;
  done: boolean;
  error?: string;
}

export interface AnswerStartEvent {
  request_id: string;
  question: string;
  citations: Citation[] | null;
}

export interface AnswerTokenEvent {
  request_id: string;
  token: string;
}

export interface AnswerDoneEvent {
  request_id: string;
  answer: Answer;
}

export interface AnswerErrorEvent {
  request_id: string;
  error: string;
}

export interface IngestProgressEvent {
  files_done: number;
  files_total: number;
  chunks: number;
  current: string;
  done: boolean;
  files_per_sec?: number;
  /** Estimated time left; 0 when unknown. */
  eta_ms?: number;
  collection?: string;
}

/**
 * Progress of DownloadModel. The Go struct has no json tags, so the fields keep
 * their Go names. Byte counts; a total of 0 means unknown.
 */
export interface ModelProgressEvent {
  File: string;
  FileDone: number;
  FileTotal: number;
  Done: number;
  Total: number;
}

/** Event name → payload, for typed subscriptions. */
export interface EventMap {
  'answer:start': AnswerStartEvent;
  'answer:token': AnswerTokenEvent;
  'answer:done': AnswerDoneEvent;
  'answer:error': AnswerErrorEvent;
  'ingest:progress': IngestProgressEvent;
  'model:progress': ModelProgressEvent;
  'model:pull': PullProgressEvent;
}
