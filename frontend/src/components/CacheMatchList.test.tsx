import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answerFixture, citation, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { Answer, CacheMatch } from '../types';
import { cacheMatchLines } from './CacheMatchList';
import { ChatPanel } from './ChatPanel';

const matched: CacheMatch = {
  similarity: true,
  same_ask: true,
  shared: ['identifier A-100', 'number 52'],
  passages: true,
  passages_cited: 2,
  same_index: true,
  revisions: true,
  reverified: false,
};

const cached: Answer = answerFixture({
  request_id: 'r2',
  question: 'On model A-100, what does error 52 mean?',
  answer: 'The tray is empty [#1].',
  grounded: true,
  refusal_reason: null,
  citations: [citation(1)],
  model: 'llama3.2',
  embed_model: 'minilm',
  stopped: false,
  duration_ms: 0,
  cache: {
    hit: true,
    original_question: 'What does error 52 mean on model A-100?',
    original_id: 'ans_r1',
    answered_at: '2025-06-01T09:00:00Z',
    similarity: 0.97,
    threshold: 0.95,
    policy: 'Served only when your question asks the same thing.',
    matched,
  },
});

describe('cache disclosure: what matched', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('lists each rule the hit met, and never claims a re-verification that did not run', () => {
    const lines = cacheMatchLines(matched);
    expect(lines).toEqual([
      'Same question after normalisation (shared: identifier A-100, number 52)',
      'Its own search found the 2 cited passage(s), unchanged',
      'Same index, model and prompt template',
      'Cited documents unchanged',
    ]);
    expect(cacheMatchLines({ ...matched, reverified: true })).toContain('Claims re-verified against the current passages');
  });

  it('shows what matched in the cache tooltip, beside the original question, time and similarity', async () => {
    bridge.app.History.mockResolvedValue([cached]);
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText(cached.question));
    fireEvent.focus(screen.getByTestId('cache-badge'));
    expect(screen.getByTestId('cache-original').textContent).toContain('What does error 52 mean on model A-100?');
    expect(screen.getByTestId('cache-answered').textContent).toMatch(/^Answered /);
    expect(screen.getByTestId('cache-similarity').textContent).toBe('Similarity 0.97 (threshold 0.95)');
    const list = screen.getByTestId('cache-matched');
    expect(list.textContent).toContain('identifier A-100, number 52');
    expect(list.querySelectorAll('li')).toHaveLength(4);
    expect(screen.getByTestId('ask-fresh')).toBeTruthy();
  });

  it('shows no list for an answer cached before the rules were recorded', async () => {
    bridge.app.History.mockResolvedValue([{ ...cached, cache: { ...cached.cache!, matched: undefined } }]);
    render(<ChatPanel />);
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText(cached.question));
    fireEvent.focus(screen.getByTestId('cache-badge'));
    expect(screen.getByTestId('cache-tooltip')).toBeTruthy();
    expect(screen.queryByTestId('cache-matched')).toBeNull();
  });
});
