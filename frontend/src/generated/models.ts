// Code generated from the Go types crossing the Wails boundary; DO NOT EDIT.
// Regenerate with `make types` (app/generated_types_test.go checks it is current).

/** Go: rag.Answer */
export interface Answer {
  schema: string;
  trace_id: string;
  id: string;
  request_id: string;
  question: string;
  answer: string;
  grounded: boolean;
  refusal_reason: string | null;
  citations: Citation[] | null;
  evidence: Citation[] | null;
  nearest?: Citation[] | null;
  model: string;
  embed_model: string;
  prompt_template_version: string;
  retrieval: RetrievalSummary;
  generation: Generation;
  usage: Usage;
  stopped: boolean;
  incomplete: boolean;
  error?: string;
  duration_ms: number;
  created_at: string;
  finished_at: string;
  index_hash: string;
  provenance: Provenance;
  validation: Report;
  segments?: Segment[] | null;
  cache?: CacheInfo | null;
  claims?: ClaimResult[] | null;
  verification?: Verification | null;
  evidence_source_counts: Record<string, number> | null;
  followup?: Followup | null;
  lambda_state: string;
  lambda_basis?: LambdaBasis | null;
  footnote_version: string;
}

/** Go: app.doneEvent */
export interface AnswerDoneEvent {
  request_id: string;
  answer: Answer;
  thread_id?: string;
  turn?: number;
}

/** Go: app.errorEvent */
export interface AnswerErrorEvent {
  request_id: string;
  error: string;
}

/** Go: eval.AnswerReport */
export interface AnswerReport extends Metrics {
  source: string;
  runs: number;
  per_run?: Metrics[] | null;
  spread?: Record<string, Spread> | null;
  gates: GateResult[] | null;
  passed: boolean;
  rows: Row[] | null;
  follow_ups?: Metrics | null;
  lambda?: Convergence | null;
  untraced?: string[] | null;
}

/** Go: app.startEvent */
export interface AnswerStartEvent {
  request_id: string;
  citations: Citation[] | null;
}

/** Go: app.tokenEvent */
export interface AnswerTokenEvent {
  request_id: string;
  token: string;
}

/** Go: provenance.Attribution */
export interface Attribution {
  retrievers: string[] | null;
  ranks: Record<string, number> | null;
  rrf_contribution: number;
  retrieved_at: string;
  retrieval_ms: number;
  vector_similarity: number | null;
  collection: string;
  data_tier: number;
  data_source: string;
}

/** Go: rag.CacheInfo */
export interface CacheInfo {
  hit: boolean;
  original_question: string;
  original_id: string;
  answered_at: string;
  similarity: number;
  threshold: number;
  policy: string;
  matched?: CacheMatch | null;
}

/** Go: rag.CacheMatch */
export interface CacheMatch {
  similarity: boolean;
  same_ask: boolean;
  shared: string[] | null;
  passages: boolean;
  passages_cited: number;
  same_index: boolean;
  revisions: boolean;
  reverified: boolean;
}

/** Go: verify.Check */
export interface Check {
  kind: string;
  claim: string;
  passage?: string;
  detail?: string;
  ok: boolean;
}

/** Go: rag.Citation */
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
  window: Window;
  page?: number;
  index_hash: string;
  analyzer: string;
  score_raw: number;
  score_norm: number;
  rerank_score?: number | null;
  k_pos: number;
  k_final: number;
  rev: string;
  embed_model: string;
  source: string;
  created_at: string;
  data_tier: number;
  stale: boolean;
  attribution: Attribution;
  explain: Contribution[] | null;
  text: string;
  context?: string;
  ocr?: boolean;
  delta_s?: number | null;
}

/** Go: eval.CitationCounts */
export interface CitationCounts {
  from: string;
  cited_claims: number;
  supported_claims: number;
  uncited_claims: number;
  citations: number;
  supporting_citations: number;
}

/** Go: verify.Claim */
export interface Claim {
  text: string;
  plain: string;
  start: number;
  end: number;
  char_start: number;
  char_end: number;
  kind: string;
  markers: number[] | null;
  inherited: boolean;
  echoed: number[] | null;
  non_claim: string;
}

/** Go: verify.ClaimResult */
export interface ClaimResult {
  claim: Claim;
  results: Result[] | null;
  verdict: string;
  score: number;
  reason?: string;
}

/** Go: store.Collection */
export interface Collection {
  name: string;
  paths: string[] | null;
  documents: number;
  chunks: number;
  created_at: string;
}

/** Go: engine.CollectionInfo */
export interface CollectionInfo extends Collection {
  last_indexed_at: string | null;
  pending: number;
  failed: number;
  watched: boolean;
}

/** Go: engine.ContentCheck */
export interface ContentCheck {
  source: string;
  reason: string;
  overridden: boolean;
}

/** Go: search.Contribution */
export interface Contribution {
  retriever: string;
  score_raw: number;
  k_pos: number;
  rrf: number;
  weight?: number;
  coverage?: number | null;
}

/** Go: eval.Convergence */
export interface Convergence {
  convergent: number;
  divergent: number;
  share: number;
  divergent_qids: string[] | null;
}

/** Go: store.DocumentInfo */
export interface DocumentInfo {
  doc_id: string;
  title: string;
  path: string;
  format: string;
  rev: string;
  size: number;
  mod_time: string;
  collection: string;
  chunks: number;
  indexed_at: string;
  ocr_pages?: number[] | null;
  charset?: string;
}

/** Go: engine.DocumentView */
export interface DocumentView extends DocumentInfo {
  text: string;
  chars: number;
}

/** Go: eval.Progress */
export interface EvalProgress {
  done: number;
  total: number;
  qid: string;
}

/** Go: app.EvalReport */
export interface EvalReport extends AnswerReport {
  markdown: string;
}

/** Go: verify.Fact */
export interface Fact {
  kind: string;
  text: string;
  score: number;
  weight: number;
}

/** Go: engine.FileError */
export interface FileError {
  path: string;
  error: string;
}

/** Go: engine.FileStatus */
export interface FileStatus {
  path: string;
  status: string;
  reason?: string;
  doc_id?: string;
  title?: string;
  format?: string;
  chunks: number;
  indexed_at?: string | null;
  content_check?: ContentCheck | null;
  ocr_pages?: number[] | null;
  charset?: string;
  set_aside?: boolean;
}

/** Go: rag.Followup */
export interface Followup {
  asked: string;
  standalone: string;
  rewrite_source: string;
  rewrite_note?: string;
  turns_used: number[] | null;
  turns_dropped: number;
  history_tokens: number;
}

/** Go: eval.Gate */
export interface Gate {
  metric: string;
  min: boolean;
  value: number;
}

/** Go: rag.GateRefusal */
export interface GateRefusal {
  signal: string;
  value: number;
  threshold: number;
  why: string;
}

/** Go: eval.GateResult */
export interface GateResult extends Gate {
  actual: number;
  passed: boolean;
}

/** Go: rag.Generation */
export interface Generation {
  provider: string;
  temperature: number;
  seed: number;
  num_ctx: number;
  model_context: number;
  prompt_tokens: number;
  context_window: number;
  context_source: string;
  num_predict: number;
}

/** Go: engine.Progress */
export interface IngestProgressEvent {
  files_done: number;
  files_total: number;
  chunks: number;
  current: string;
  done: boolean;
  files_per_sec: number;
  eta_ms: number;
  collection: string;
}

/** Go: provenance.Issue */
export interface Issue {
  code: string;
  severity: string;
  n?: number;
  seg?: number;
  message: string;
  fix: string;
}

/** Go: rag.LambdaBasis */
export interface LambdaBasis {
  kind: string;
  previous_id?: string;
  previous_at?: string;
  reason: string;
}

/** Go: eval.Metrics */
export interface Metrics {
  questions: number;
  answerable: number;
  unanswerable: number;
  answered: number;
  k: number;
  precision: number;
  over_refusal: number;
  under_refusal: number;
  citation_hit_rate: number;
  compliance: number;
  containment: number;
  word_containment: number;
  phrase_containment: number;
  non_corpus_citation_rate: number;
  citation_recall: number | null;
  citation_precision: number | null;
  citation_answers: number;
  recall_at_k: number;
  mrr_at_10: number;
  ndcg_at_10: number;
  labels: Record<string, number> | null;
}

/** Go: engine.Model */
export interface Model {
  name: string;
  size: number;
  parameter_size: string;
  modified_at: string;
}

/** Go: embed.Progress */
export interface ModelProgressEvent {
  file: string;
  file_done: number;
  file_total: number;
  done: number;
  total: number;
}

/** Go: corpus.Offsets */
export interface Offsets {
  start: number;
  end: number;
  unit: string;
}

/** Go: provenance.Provenance */
export interface Provenance {
  data_source: string;
  data_tier: number;
  derivation_chain: string[] | null;
  steps: Step[] | null;
  source_timestamp: string;
  indexed_at?: string | null;
  revalidation_policy: string;
  llm_provider?: string;
  llm_model?: string;
  sources_queried: string[] | null;
  total_retrieved: number;
  total_after_fusion: number;
  data_tier_breakdown: Record<string, number> | null;
  confidence_score: number;
}

/** Go: engine.PullProgress */
export interface PullProgressEvent {
  model: string;
  status: string;
  completed: number;
  total: number;
  done: boolean;
  error?: string;
}

/** Go: provenance.Report */
export interface Report {
  ok: boolean;
  issues: Issue[] | null;
}

/** Go: verify.Result */
export interface Result {
  n: number;
  span: Span;
  score: number;
  verdict: string;
  reason?: string;
  signals: Signals;
}

/** Go: rag.RetrievalSummary */
export interface RetrievalSummary {
  mode: string;
  k: number;
  gate: number;
  top_score: number;
  returned: number;
  used: number;
  budget: number;
  packed_tokens: number;
  word_match?: number | null;
  key_words?: string[] | null;
  matched_key_words?: string[] | null;
  rare_term_share?: number | null;
  rare_terms?: string[] | null;
  refused_by?: GateRefusal | null;
  delta_s?: number | null;
  delta_s_background?: number | null;
  delta_s_gate?: string;
  retrieved_at: string;
}

/** Go: eval.Row */
export interface Row {
  qid: string;
  run: number;
  question: string;
  answerable: boolean;
  answered: boolean;
  hit: boolean;
  compliant: boolean;
  contains_claim: boolean | null;
  contains_word: boolean | null;
  contains_phrase: boolean | null;
  citations: number;
  non_corpus_citations: number;
  cited: string[] | null;
  label: string;
  refusal_reason?: string;
  answer: string;
  retrieval?: Scores | null;
  citation_recall: number | null;
  citation_precision: number | null;
  claim_counts?: CitationCounts | null;
  follow_up?: boolean;
  lambda?: string;
}

/** Go: app.SaveResult */
export interface SaveResult {
  settings: UISettings;
  restart_required: string[] | null;
}

/** Go: eval.Scores */
export interface Scores {
  recall_at_k: number;
  mrr_at_10: number;
  ndcg_at_10: number;
}

/** Go: provenance.Segment */
export interface Segment {
  text: string;
  cites: number[] | null;
  inherited?: boolean;
  non_claim?: string;
}

/** Go: verify.Signals */
export interface Signals {
  lexical: number;
  semantic?: number | null;
  cosine?: number | null;
  baseline?: number | null;
  entailment?: number | null;
  contradiction?: number | null;
  facts?: Fact[] | null;
  checks?: Check[] | null;
  missing?: string[] | null;
}

/** Go: verify.Span */
export interface Span {
  offsets: Offsets;
  text: string;
  sentences: number;
  passage_start: number;
  passage_end: number;
}

/** Go: eval.Spread */
export interface Spread {
  mean: number;
  min: number;
  max: number;
  stddev: number;
}

/** Go: app.Status */
export interface Status {
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
  remote: boolean;
  lexical_only: boolean;
}

/** Go: provenance.Step */
export interface Step {
  name: string;
  tier: number;
}

/** Go: engine.Summary */
export interface Summary {
  files_seen: number;
  files_indexed: number;
  files_unchanged: number;
  files_skipped: number;
  files_failed: number;
  files_deleted: number;
  chunks_embedded: number;
  chunks_reused: number;
  errors: FileError[] | null;
  skipped: FileError[] | null;
  duration_ms: number;
  files_kept_out: number;
  notes?: FileError[] | null;
}

/** Go: store.Thread */
export interface Thread {
  id: string;
  title: string;
  created_at: string;
  updated_at: string;
  turns: number;
}

/** Go: engine.ThreadAnswer */
export interface ThreadAnswer {
  thread: Thread;
  turn: ThreadTurn;
  answer: Answer;
}

/** Go: store.ThreadTurn */
export interface ThreadTurn {
  seq: number;
  answer_id: string;
  question: string;
  standalone: string;
}

/** Go: app.UISettings */
export interface UISettings {
  ollama_host: string;
  llm_model: string;
  embed_model_dir: string;
  word_match_gate: number;
  evidence_k: number;
  top_k: number;
  provider: string;
  openai_base_url: string;
  retrieval_mode: string;
  answer_cache: boolean;
  cross_section: string;
  theme: string;
  follow_outside_links?: boolean | null;
  max_answer_tokens: number;
  confirm_remote?: boolean;
  settings_path: string;
  version: string;
  overridden: string[] | null;
}

/** Go: rag.Usage */
export interface Usage {
  prompt_tokens: number;
  answer_tokens: number;
  total_ns: number;
  load_ns: number;
  prompt_eval_ns: number;
  eval_ns: number;
  done_reason: string;
  first_token_ms: number;
}

/** Go: rag.Verification */
export interface Verification extends VerifySummary {
  mode: string;
  reasons?: string[] | null;
  elapsed_ms: number;
  error?: string;
}

/** Go: verify.Summary */
export interface VerifySummary {
  claims: number;
  supported: number;
  partial: number;
  unsupported: number;
  uncited: number;
  citations: number;
  supporting: number;
  failing: number[] | null;
}

/** Go: engine.WatchState */
export interface WatchState {
  watching: boolean;
  roots: string[] | null;
  pending: number;
  error: string;
}

/** Go: corpus.Window */
export interface Window {
  pre: number;
  post: number;
}

/** Methods bound from the Go struct app.App; each returns a Promise. */
export interface AppBindings {
  AddFolder(arg1: string, arg2: string): Promise<Summary>;
  AddPaths(arg1: string, arg2: string[] | null): Promise<Summary>;
  AnswerCacheEnabled(): Promise<boolean>;
  Ask(arg1: string): Promise<string>;
  AskFresh(arg1: string): Promise<string>;
  AskInThread(arg1: string, arg2: string, arg3: string): Promise<string>;
  CollectionFiles(arg1: string): Promise<FileStatus[] | null>;
  Collections(): Promise<CollectionInfo[] | null>;
  DefaultGoldSet(): Promise<string>;
  DeleteThread(arg1: string): Promise<void>;
  Documents(): Promise<DocumentInfo[] | null>;
  DownloadModel(): Promise<void>;
  Evaluate(arg1: string): Promise<EvalReport>;
  EvaluateCollection(arg1: string, arg2: string): Promise<EvalReport>;
  History(arg1: string, arg2: number): Promise<Answer[] | null>;
  Ingest(arg1: string[] | null): Promise<Summary>;
  Models(): Promise<Model[] | null>;
  NewThread(arg1: string): Promise<Thread>;
  OpenDocument(arg1: string): Promise<DocumentView>;
  OpenLink(arg1: string): Promise<void>;
  OpenOriginal(arg1: string): Promise<void>;
  PickFiles(): Promise<string[] | null>;
  PickFolder(): Promise<string>;
  PullModel(arg1: string): Promise<void>;
  RemoveCollection(arg1: string): Promise<void>;
  RenameThread(arg1: string, arg2: string): Promise<void>;
  Rescan(arg1: string): Promise<Summary>;
  RetryFile(arg1: string): Promise<Summary>;
  SaveSettings(arg1: UISettings): Promise<SaveResult>;
  Search(arg1: string): Promise<Citation[] | null>;
  SetAnswerCache(arg1: boolean): Promise<boolean>;
  SetCrossSectionPolicy(arg1: string): Promise<void>;
  Settings(): Promise<UISettings>;
  Status(): Promise<Status>;
  Stop(arg1: string): Promise<void>;
  ThreadAnswers(arg1: string): Promise<ThreadAnswer[] | null>;
  Threads(): Promise<Thread[] | null>;
  TreatAsDocument(arg1: string, arg2: boolean): Promise<Summary>;
  WatchState(): Promise<WatchState>;
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
  'eval:progress': EvalProgress;
}
