import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerFixture, citation, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { Answer } from '../types';
import { ChatPanel } from './ChatPanel';
import { CitationTooltip } from './CitationTooltip';

const base: Answer = answerFixture({
  request_id: 'r2',
  question: 'how to install',
  answer: 'Download it [#1].',
  grounded: true,
  refusal_reason: null,
  citations: [citation(1)],
  model: 'llama3.2',
  embed_model: 'minilm',
  stopped: false,
  duration_ms: 0,
});

const cached: Answer = {
  ...base,
  citations: [
    citation(1, {
      attribution: {
        retrievers: ['lexical', 'vector'],
        ranks: { lexical: 1, vector: 3 },
        rrf_contribution: 0.032,
        retrieved_at: '2025-06-01T08:59:58Z',
        retrieval_ms: 4,
        vector_similarity: 0.8123,
        collection: 'manuals',
        data_tier: 1,
        data_source: 'corpus',
      },
    }),
  ],
  provenance: {
    ...base.provenance,
    data_tier: 1,
    derivation_chain: ['Cache:semantic', 'FTS5:bm25', 'Vector:sqlite-vec', 'Fusion:RRF(k=60)', 'LLM:ollama/llama3.2'],
    source_timestamp: '2025-06-01T08:59:58Z',
    revalidation_policy: 'on_access',
    confidence_score: 0.81,
  },
  cache: {
    hit: true,
    original_question: 'How do I install?',
    original_id: 'ans_r1',
    answered_at: '2025-06-01T09:00:00Z',
    similarity: 0.97,
    threshold: 0.95,
    policy: 'Served only while every cited document keeps its revision.',
  },
};

const invalid: Answer = {
  ...base,
  request_id: 'r3',
  question: 'stale one',
  grounded: false,
  refusal_reason: 'validation_failed',
  validation: {
    ok: false,
    issues: [
      { code: 'rev_mismatch', severity: 'error', n: 1, message: 'citation [#1]: document changed', fix: 'Re-index the document or ask fresh.' },
    ],
  },
};

describe('provenance in the UI', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('marks a cached answer with a badge whose tooltip discloses the cache, and asks fresh', async () => {
    bridge.app.History.mockResolvedValue([cached]);
    bridge.app.AskFresh.mockResolvedValue('r9');
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText('how to install'));
    const badge = screen.getByTestId('cache-badge');
    expect(screen.queryByTestId('cache-tooltip')).toBeNull();
    fireEvent.focus(badge);
    const tip = screen.getByTestId('cache-tooltip');
    expect(tip.textContent).toContain('Served from the answer cache');
    expect(screen.getByTestId('cache-original').textContent).toContain('How do I install?');
    expect(screen.getByTestId('cache-similarity').textContent).toBe('Similarity 0.97 (threshold 0.95)');
    expect(screen.getByTestId('cache-policy').textContent).toContain('revision');
    // The provenance specification's tooltip: tier, when the evidence was
    // retrieved, the derivation chain, revalidation, confidence, and how
    // each cited passage was found.
    expect(screen.getByTestId('cache-prov-tier').textContent).toBe('Data tier 1 · your documents');
    expect(screen.getByTestId('cache-prov-retrieved').textContent).toMatch(/Evidence retrieved .*2025/);
    expect(screen.getByTestId('cache-prov-chain').textContent).toBe(
      'Cache:semantic → FTS5:bm25 → Vector:sqlite-vec → Fusion:RRF(k=60) → LLM:ollama/llama3.2',
    );
    expect(screen.getByTestId('cache-prov-policy').textContent).toMatch(/on access: revalidated/);
    expect(screen.getByTestId('cache-prov-confidence').textContent).toBe('Confidence 0.81');
    const source = screen.getByTestId('cache-prov-source').textContent ?? '';
    expect(source).toMatch(/\[#1\] Install guide 1 § install-linux-1/);
    expect(source).toMatch(/lexical #1, vector #3 · vector similarity 0\.81 · collection manuals · retrieved .*2025/);
    fireEvent.click(screen.getByTestId('ask-fresh'));
    await waitFor(() => expect(bridge.app.AskFresh).toHaveBeenCalledWith('how to install'));
    expect(bridge.app.Ask).not.toHaveBeenCalled();
  });

  it('shows a failed validation with its code and fix', async () => {
    bridge.app.History.mockResolvedValue([invalid]);
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText('stale one'));
    const err = screen.getByTestId('validation-error');
    expect(err.textContent).toContain('rev_mismatch');
    expect(err.textContent).toContain('Re-index the document or ask fresh.');
    expect(screen.getByTestId('refusal-reason').textContent).toContain('provenance validation');
    expect(screen.getByTestId('refusal-reason').textContent).toContain('(rev_mismatch)');
  });

  it('shows the answer\'s λ and what it was judged on', async () => {
    const repeat: Answer = {
      ...base,
      request_id: 'r4',
      question: 'asked again',
      provenance: { ...base.provenance, derivation_chain: ['FTS5:bm25'], source_timestamp: '2025-06-02T10:00:00Z' },
      lambda_state: 'convergent',
      lambda_basis: {
        kind: 'repeat',
        previous_id: 'ans_r1',
        previous_at: '2025-06-01T09:00:00Z',
        reason: 'cites a section the last answer to this question cited too',
      },
    };
    bridge.app.History.mockResolvedValue([repeat]);
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText('asked again'));
    expect(screen.getByTestId('provenance-lambda').textContent).toMatch(
      /^convergent: cites a section the last answer to this question cited too \(.*2025.*\)$/,
    );
    expect(screen.getByTestId('provenance-retrieved').textContent).toMatch(/2025/);
  });

  it('shows index hash, revision, indexed time, analyzer, data tier and the stale flag in the citation tooltip', () => {
    const anchor = document.createElement('button');
    document.body.appendChild(anchor);
    const c = citation(1, {
      index_hash: 'abc123',
      rev: 'rev9',
      analyzer: 'fts5:unicode61',
      data_tier: 1,
      stale: true,
      created_at: '2026-02-03T04:05:06Z',
    });
    render(<CitationTooltip id="t" anchor={anchor} citation={c} />);
    expect(screen.getByTestId('tooltip-index-hash').textContent).toBe('abc123');
    expect(screen.getByTestId('tooltip-indexed').textContent).toMatch(/2026/);
    expect(screen.getByTestId('tooltip-rev').textContent).toContain('rev9');
    expect(screen.getByTestId('tooltip-analyzer').textContent).toBe('fts5:unicode61');
    expect(screen.getByTestId('tooltip-tier').textContent).toBe('1 · your documents');
    expect(screen.getByTestId('tooltip-stale')).toBeTruthy();
  });

  it('shows the passage ΔS when it was measured', () => {
    const anchor = document.createElement('button');
    document.body.appendChild(anchor);
    render(<CitationTooltip id="t" anchor={anchor} citation={citation(1, { delta_s: 0.31234 })} />);
    expect(screen.getByTestId('tooltip-delta-s').textContent).toBe('0.312');
  });

  it('marks a passage from a scanned page read by OCR in the citation tooltip', () => {
    const anchor = document.createElement('button');
    document.body.appendChild(anchor);
    const { rerender } = render(<CitationTooltip id="t" anchor={anchor} citation={citation(1, { page: 2, ocr: true })} />);
    expect(screen.getByTestId('tooltip-page').textContent).toBe('2 · OCR');
    expect(screen.queryByTestId('tooltip-delta-s')).toBeNull();
    expect(screen.getByTestId('tooltip-ocr').getAttribute('title')).toMatch(/recognised by OCR/);
    rerender(<CitationTooltip id="t" anchor={anchor} citation={citation(1, { page: 2 })} />);
    expect(screen.getByTestId('tooltip-page').textContent).toBe('2');
    expect(screen.queryByTestId('tooltip-ocr')).toBeNull();
  });

  it('shows each retriever\'s weight, the model\'s coverage of the question and the context the passage was indexed with', () => {
    const anchor = document.createElement('button');
    document.body.appendChild(anchor);
    const explain = [
      { retriever: 'lexical', score_raw: -7.1, k_pos: 1, rrf: 0.0164, weight: 1 },
      { retriever: 'vector', score_raw: 0.91, k_pos: 4, rrf: 0.00001, weight: 0.001, coverage: 0.25 },
    ];
    const { rerender } = render(
      <CitationTooltip
        id="t"
        anchor={anchor}
        citation={citation(1, { explain, context: 'Prices › 2024\n| Item | Price |\n| --- | --- |' })}
      />,
    );
    expect(screen.getByTestId('tooltip-retrievers').textContent).toBe(
      "lexical ×1.00 + vector ×0.00 · the embedding model knows 25% of the question's words",
    );
    expect(screen.getByTestId('tooltip-context').textContent).toBe('Prices › 2024\n| Item | Price |\n| --- | --- |');
    rerender(<CitationTooltip id="t" anchor={anchor} citation={citation(1, { explain: [{ retriever: 'lexical', score_raw: -3, k_pos: 1, rrf: 0.016 }] })} />);
    expect(screen.getByTestId('tooltip-retrievers').textContent).toBe('lexical');
    expect(screen.queryByTestId('tooltip-context')).toBeNull();
  });
});
