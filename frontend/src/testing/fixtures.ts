// Test-only helpers: sample data and a fake Wails bridge on window.
import { vi } from 'vitest';
import type { AppBindings, WailsRuntime } from '../api';
import type { Answer, Citation, RetrievalSummary, Status, Usage } from '../types';

export function citation(n: number, overrides: Partial<Citation> = {}): Citation {
  return {
    n,
    doc_id: `doc-${n}`,
    section_id: `install-linux-${n}`,
    snippet_id: `snip-${n}`,
    source_url: '',
    title: `Install guide ${n}`,
    path: `docs/install-${n}.md`,
    offsets: { start: 10 * n, end: 10 * n + 120, unit: 'char' },
    tokens: 42,
    window: { pre: 0, post: 0 },
    index_hash: '',
    analyzer: '',
    score_raw: 0,
    score_norm: 0.87,
    k_pos: n,
    k_final: n,
    rev: '',
    embed_model: '',
    source: '',
    created_at: '',
    data_tier: 1,
    stale: false,
    attribution: {
      retrievers: null,
      ranks: null,
      rrf_contribution: 0,
      retrieved_at: '',
      retrieval_ms: 0,
      vector_similarity: null,
      collection: '',
      data_tier: 1,
      data_source: '',
    },
    explain: null,
    text: `Download the AppImage and mark it executable (snippet ${n}).`,
    ...overrides,
  };
}

/** Usage as the Go side sends it, with only the given counts set. */
export function usage(overrides: Partial<Usage> = {}): Usage {
  return {
    prompt_tokens: 0,
    answer_tokens: 0,
    total_ns: 0,
    load_ns: 0,
    prompt_eval_ns: 0,
    eval_ns: 0,
    done_reason: '',
    first_token_ms: 0,
    ...overrides,
  };
}

/** A retrieval summary as the Go side sends it. */
export function retrieval(overrides: Partial<RetrievalSummary> = {}): RetrievalSummary {
  return {
    mode: 'hybrid',
    k: 0,
    gate: 0,
    top_score: 0,
    returned: 0,
    used: 0,
    budget: 0,
    packed_tokens: 0,
    retrieved_at: '',
    ...overrides,
  };
}

/** An answer with every field the Go side always sends, zero unless overridden. */
export function answerFixture(overrides: Partial<Answer> = {}): Answer {
  return {
    id: '',
    request_id: '',
    question: '',
    answer: '',
    grounded: false,
    refusal_reason: null,
    citations: null,
    evidence: null,
    model: '',
    embed_model: '',
    prompt_template_version: '',
    retrieval: retrieval(),
    generation: {
      provider: '',
      temperature: 0,
      seed: 0,
      num_ctx: 0,
      model_context: 0,
      prompt_tokens: 0,
      context_window: 0,
      context_source: '',
      num_predict: 0,
    },
    usage: usage(),
    stopped: false,
    incomplete: false,
    duration_ms: 0,
    created_at: '',
    finished_at: '',
    index_hash: '',
    provenance: {
      data_source: '',
      data_tier: 0,
      derivation_chain: null,
      steps: null,
      source_timestamp: '',
      revalidation_policy: 'on_access',
      sources_queried: null,
      total_retrieved: 0,
      total_after_fusion: 0,
      data_tier_breakdown: null,
      confidence_score: 0,
    },
    validation: { ok: true, issues: null },
    evidence_source_counts: null,
    schema: 'answer.v1',
    trace_id: '',
    footnote_version: '',
    lambda_state: '-',
    ...overrides,
  };
}

/** A status as the Go side sends it. */
export function statusFixture(overrides: Partial<Status> = {}): Status {
  return {
    loading: false,
    ready: false,
    embed_model: '',
    embed_error: '',
    llm_model: '',
    ollama_host: '',
    ollama_error: '',
    documents: 0,
    chunks: 0,
    data_dir: '',
    index_hash: '',
    remote: false,
    lexical_only: false,
    ...overrides,
  };
}

export interface FakeBridge {
  app: { [K in keyof AppBindings]: ReturnType<typeof vi.fn> };
  emit(name: string, payload: unknown): void;
  listeners: Map<string, Set<(...data: unknown[]) => void>>;
}

/** Installs window.go / window.runtime fakes; returns handles to drive them. */
export function installFakeBridge(): FakeBridge {
  const listeners = new Map<string, Set<(...data: unknown[]) => void>>();
  const app = {
    AddFolder: vi.fn(),
    AnswerCacheEnabled: vi.fn(),
    DefaultGoldSet: vi.fn(),
    Evaluate: vi.fn(),
    EvaluateCollection: vi.fn(),
    SetAnswerCache: vi.fn(),
    SetCrossSectionPolicy: vi.fn(),
    Status: vi.fn(),
    Ingest: vi.fn(),
    PickFolder: vi.fn(),
    Documents: vi.fn(),
    Ask: vi.fn(),
    AskFresh: vi.fn(),
    Stop: vi.fn(),
    Search: vi.fn(),
    DownloadModel: vi.fn(),
    OpenDocument: vi.fn(),
    OpenOriginal: vi.fn(),
    OpenLink: vi.fn(),
    Settings: vi.fn(),
    SaveSettings: vi.fn(),
    Models: vi.fn(),
    PullModel: vi.fn(),
    History: vi.fn(),
    AddPaths: vi.fn(),
    PickFiles: vi.fn(),
    Collections: vi.fn(),
    CollectionFiles: vi.fn(),
    Rescan: vi.fn(),
    TreatAsDocument: vi.fn(),
    RetryFile: vi.fn(),
    RemoveCollection: vi.fn(),
    WatchState: vi.fn(),
    Threads: vi.fn(),
    NewThread: vi.fn(),
    RenameThread: vi.fn(),
    DeleteThread: vi.fn(),
    ThreadAnswers: vi.fn(),
    AskInThread: vi.fn(),
  };
  const runtime: WailsRuntime = {
    EventsOn(name, callback) {
      const set = listeners.get(name) ?? new Set();
      set.add(callback);
      listeners.set(name, set);
      return () => set.delete(callback);
    },
    EventsOff(name) {
      listeners.delete(name);
    },
  };
  window.go = { app: { App: app as unknown as AppBindings } };
  window.runtime = runtime;
  return {
    app,
    listeners,
    emit(name, payload) {
      for (const cb of listeners.get(name) ?? []) cb(payload);
    },
  };
}

export function removeFakeBridge(): void {
  delete window.go;
  delete window.runtime;
}
