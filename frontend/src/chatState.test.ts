import { describe, expect, it } from 'vitest';
import { chatReducer, currentTurn, initialChatState, type ChatAction, type ChatState } from './chatState';
import { answerFixture, citation } from './testing/fixtures';
import type { Answer } from './types';

function run(actions: ChatAction[], from: ChatState = initialChatState): ChatState {
  return actions.reduce(chatReducer, from);
}

function answer(requestId: string, text: string, overrides: Partial<Answer> = {}): Answer {
  return answerFixture({
    request_id: requestId,
    question: 'q',
    answer: text,
    grounded: true,
    refusal_reason: null,
    citations: [citation(1)],
    model: 'llama',
    embed_model: 'minilm',
    stopped: false,
    duration_ms: 1200,
    ...overrides,
  });
}

const token = (request_id: string, t: string): ChatAction => ({
  type: 'answer:token',
  payload: { request_id, token: t },
});

describe('chatReducer', () => {
  it('streams tokens of the current request and ignores other request ids', () => {
    const state = run([
      { type: 'ask', question: 'How?' },
      { type: 'asked', requestId: 'r1' },
      { type: 'answer:start', payload: { request_id: 'r1', citations: [citation(1)] } },
      token('r1', 'Use '),
      token('other', 'NOISE '),
      token('r1', 'apt [#1].'),
    ]);
    const turn = currentTurn(state);
    expect(turn?.text).toBe('Use apt [#1].');
    expect(turn?.phase).toBe('streaming');
    expect(turn?.citations.map((c) => c.n)).toEqual([1]);
  });

  it('finishes with the final answer and ignores late events of an old request', () => {
    let state = run([
      { type: 'ask', question: 'q1' },
      { type: 'asked', requestId: 'r1' },
      token('r1', 'partial'),
      { type: 'answer:done', payload: { request_id: 'r1', answer: answer('r1', 'Final [#1].') } },
    ]);
    expect(state.turns[0]?.phase).toBe('done');
    expect(state.turns[0]?.text).toBe('Final [#1].');
    expect(currentTurn(state)).toBeUndefined();

    state = run([{ type: 'ask', question: 'q2' }, { type: 'asked', requestId: 'r2' }, token('r1', 'late'), token('r2', 'new')], state);
    expect(state.turns).toHaveLength(2);
    expect(state.turns[0]?.text).toBe('Final [#1].');
    expect(state.turns[1]?.text).toBe('new');
  });

  it('replays events that arrive before Ask returns the id, dropping foreign ones', () => {
    const state = run([
      { type: 'ask', question: 'q' },
      { type: 'answer:start', payload: { request_id: 'r9', citations: [citation(2)] } },
      token('old', 'stale'),
      token('r9', 'early'),
      { type: 'asked', requestId: 'r9' },
      token('r9', ' later'),
    ]);
    const turn = currentTurn(state);
    expect(turn?.text).toBe('early later');
    expect(turn?.citations.map((c) => c.n)).toEqual([2]);
    expect(state.early).toEqual([]);
  });

  it('records errors and stop results', () => {
    const failed = run([
      { type: 'ask', question: 'q' },
      { type: 'asked', requestId: 'r1' },
      { type: 'answer:error', payload: { request_id: 'r1', error: 'Ollama is not running; start it with "ollama serve".' } },
    ]);
    expect(failed.turns[0]?.phase).toBe('error');
    expect(failed.turns[0]?.error).toMatch(/Ollama is not running/);

    const stopped = run([
      { type: 'ask', question: 'q' },
      { type: 'asked', requestId: 'r1' },
      { type: 'stopping' },
      token('r1', 'a'),
      { type: 'answer:done', payload: { request_id: 'r1', answer: answer('r1', 'a', { stopped: true }) } },
    ]);
    expect(stopped.turns[0]?.phase).toBe('stopped');

    const askFailed = run([{ type: 'ask', question: 'q' }, { type: 'askFailed', error: 'No documents are indexed.' }]);
    expect(askFailed.turns[0]?.phase).toBe('error');
    expect(askFailed.turns[0]?.error).toBe('No documents are indexed.');
  });

  it('does not start a second question while one is open', () => {
    const state = run([
      { type: 'ask', question: 'one' },
      { type: 'ask', question: 'two' },
    ]);
    expect(state.turns.map((t) => t.question)).toEqual(['one']);
  });

  it('shows the note of an answer cut at the length limit, live and from history', () => {
    const note =
      'The answer was cut off at the answer-length limit of 1024 tokens, so it is incomplete; ask a narrower question, or raise max_answer_tokens in Settings.';
    const cut = answer('r1', 'Partial text', { error: note, incomplete: true, refusal_reason: 'length_limit', grounded: false });
    const live = run([
      { type: 'ask', question: 'q' },
      { type: 'asked', requestId: 'r1' },
      token('r1', 'Partial text'),
      { type: 'answer:done', payload: { request_id: 'r1', answer: cut } },
    ]);
    expect(live.turns[0]?.phase).toBe('done');
    expect(live.turns[0]?.text).toBe('Partial text');
    expect(live.turns[0]?.error).toBe(note);
    expect(run([{ type: 'show', answer: cut }]).turns[0]?.error).toBe(note);
    expect(run([{ type: 'show', answer: answer('r2', 'Fine [#1].') }]).turns[0]?.error).toBeNull();
  });

  it('keeps an error when an answer:done for the same request arrives after it', () => {
    const state = run([
      { type: 'ask', question: 'q' },
      { type: 'asked', requestId: 'r1' },
      token('r1', 'partial'),
      { type: 'answer:error', payload: { request_id: 'r1', error: 'Ollama stopped responding; restart it and ask again.' } },
      { type: 'answer:done', payload: { request_id: 'r1', answer: answer('r1', 'Late final [#1].') } },
    ]);
    expect(state.turns).toHaveLength(1);
    expect(state.turns[0]?.phase).toBe('error');
    expect(state.turns[0]?.error).toBe('Ollama stopped responding; restart it and ask again.');
    expect(state.turns[0]?.text).toBe('partial');
    expect(state.turns[0]?.answer).toBeNull();
  });

  it('keeps an error that arrived before Ask returned, even if answer:done follows', () => {
    const state = run([
      { type: 'ask', question: 'q' },
      { type: 'answer:error', payload: { request_id: 'r1', error: 'No documents are indexed yet; index a folder first.' } },
      { type: 'answer:done', payload: { request_id: 'r1', answer: answer('r1', 'Late final [#1].') } },
      { type: 'asked', requestId: 'r1' },
    ]);
    expect(state.turns[0]?.phase).toBe('error');
    expect(state.turns[0]?.error).toBe('No documents are indexed yet; index a folder first.');
    expect(state.turns[0]?.answer).toBeNull();
    expect(currentTurn(state)).toBeUndefined();
  });
});
