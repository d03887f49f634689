import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerFixture, citation, retrieval, usage, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { Answer } from '../types';
import { OpenSourceContext } from '../viewer';
import { ChatPanel } from './ChatPanel';
import { Onboarding } from './Onboarding';
import { describeGate } from './TurnView';

const refusal: Answer = answerFixture({
  request_id: 'old-1',
  question: 'What is the capital of Peru?',
  answer: "I don't know based on the provided documents.",
  grounded: false,
  refusal_reason: 'score_gate',
  citations: [],
  nearest: [citation(1, { title: 'Near one', score_norm: 0.41 }), citation(2, { title: 'Near two' })],
  retrieval: retrieval({
    mode: 'hybrid',
    k: 20,
    gate: 0.1,
    top_score: 0.99,
    returned: 2,
    used: 0,
    refused_by: {
      signal: 'word_match',
      value: 0.04,
      threshold: 0.1,
      why: 'the best passage matches only 1 of the 3 key words of the question (missing: “capital”, “peru”)',
    },
  }),
  usage: usage({ prompt_tokens: 0, answer_tokens: 0 }),
  model: 'llama3.2',
  embed_model: 'minilm',
  stopped: false,
  duration_ms: 12,
});

const grounded: Answer = {
  ...refusal,
  request_id: 'old-2',
  question: 'How do I install?',
  answer: 'Download it [#1] and run it [#2].',
  grounded: true,
  refusal_reason: null,
  citations: [citation(1), citation(2)],
  nearest: null,
  usage: usage({ prompt_tokens: 300, answer_tokens: 40 }),
  duration_ms: 2300,
};

describe('answers from history', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  async function pick(question: string) {
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.click(await screen.findByText(question));
  }

  it('shows what a follow-up searched for', async () => {
    const followUp: Answer = {
      ...grounded,
      request_id: 'old-3',
      question: 'And who designed it?',
      followup: { asked: 'And who designed it?', standalone: 'Who designed the main office?', rewrite_source: 'model', turns_used: [1], turns_dropped: 0, history_tokens: 9 },
    };
    bridge.app.History.mockResolvedValue([followUp, grounded]);
    render(<ChatPanel />);
    await pick('And who designed it?');
    expect(screen.getByTestId('searched-for').textContent).toBe('Searched for: Who designed the main office?');
    await pick('How do I install?');
    expect(screen.getAllByTestId('searched-for')).toHaveLength(1);
  });

  it('searches history, shows a refusal with its reason and nearest candidates, and opens a candidate', async () => {
    bridge.app.History.mockImplementation(async (q: string) =>
      [refusal, grounded].filter((a) => a.question.toLowerCase().includes(q.toLowerCase())),
    );
    const openSource = vi.fn();
    render(
      <OpenSourceContext.Provider value={openSource}>
        <ChatPanel />
      </OpenSourceContext.Provider>,
    );
    fireEvent.click(screen.getByTestId('history-button'));
    fireEvent.change(await screen.findByTestId('history-search'), { target: { value: 'peru' } });
    await waitFor(() => expect(bridge.app.History).toHaveBeenLastCalledWith('peru', 100));
    await waitFor(() => expect(screen.queryByText('How do I install?')).toBeNull());
    fireEvent.click(screen.getByText('What is the capital of Peru?'));

    expect(screen.getByTestId('refusal-badge')).toBeTruthy();
    expect(screen.getByTestId('refusal-reason').textContent).toBe(
      'The closest passages hold too little of the question, so no answer was generated. The best passage matches only 1 of the 3 key words of the question (missing: “capital”, “peru”) (word match 0.04, needed 0.10).',
    );
    const nearest = screen.getByTestId('nearest');
    expect(nearest.querySelectorAll('li')).toHaveLength(2);
    fireEvent.click(screen.getByText('Near two'));
    expect(openSource).toHaveBeenCalledWith({ citations: refusal.nearest, n: 2 });
  });

  it('shows a passages-only answer when no answer model runs: the quoted sentences with their chips and what to start', async () => {
    const passages = answerFixture({
      request_id: 'np-1',
      question: 'How do I install on Linux?',
      answer: 'To install, download the AppImage. [#1]',
      grounded: false,
      refusal_reason: 'no_answer_model',
      error: 'No answer model is running; these passages match. Ollama is not reachable at http://127.0.0.1:11434. Start it with `ollama serve`.',
      citations: [citation(1, { text: 'To install, download the AppImage.' })],
      evidence: [citation(1, { text: 'To install, download the AppImage.' })],
    });
    bridge.app.History.mockResolvedValue([passages]);
    render(<ChatPanel />);
    await pick('How do I install on Linux?');
    expect(screen.getByTestId('refusal-badge').textContent).toBe('Passages only');
    expect(screen.getByTestId('refusal-reason').textContent).toBe('Each line is quoted from the passage it cites; no model wrote it.');
    expect(screen.getByText(/^No answer model is running; these passages match/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Citation 1' })).toBeTruthy();
    expect(screen.getByText(/ollama serve/)).toBeTruthy();
  });

  it('shows model, time and tokens, and a click on a chip opens the source viewer', async () => {
    bridge.app.History.mockResolvedValue([grounded]);
    const openSource = vi.fn();
    render(
      <OpenSourceContext.Provider value={openSource}>
        <ChatPanel />
      </OpenSourceContext.Provider>,
    );
    await pick('How do I install?');
    expect(screen.getByTestId('answer-footer').textContent).toBe('llama3.2 · 2.3 s · 300 prompt + 40 answer tokens');
    fireEvent.click(screen.getByRole('button', { name: 'Citation 2' }));
    expect(openSource).toHaveBeenCalledWith({ citations: grounded.citations, n: 2 });

    const chip1 = screen.getByRole('button', { name: 'Citation 1' });
    chip1.focus();
    fireEvent.keyDown(chip1, { key: 'ArrowRight' });
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Citation 2');
  });
});

describe('Onboarding', () => {
  afterEach(cleanup);
  const base = {
    loading: false,
    ready: true,
    embed_model: 'minilm',
    embed_error: '',
    llm_model: 'llama3.2:3b',
    ollama_host: 'http://127.0.0.1:11434',
    ollama_error: '',
    documents: 0,
    chunks: 0,
    data_dir: '/data',
    index_hash: 'h',
    remote: false,
    lexical_only: false,
  };

  it('says exactly what to do for Ollama and the library', () => {
    render(<Onboarding status={{ ...base, ollama_error: 'Ollama is not reachable' }} documents={0} />);
    expect(screen.getByTestId('step-embed').dataset.state).toBe('ok');
    expect(screen.getByTestId('step-ollama').dataset.state).toBe('todo');
    expect(screen.getByTestId('step-ollama').textContent).toContain('ollama pull llama3.2:3b');
    expect(screen.getByTestId('step-library').dataset.state).toBe('todo');
    // Not dismissible while something is broken.
    expect(screen.queryByTestId('onboarding-dismiss')).toBeNull();
  });

  it('says that search works by words until the embedding model is downloaded', () => {
    render(<Onboarding status={{ ...base, embed_model: '', lexical_only: true, embed_error: 'Searching by words only.' }} documents={12} />);
    expect(screen.getByTestId('step-embed').dataset.state).toBe('todo');
    expect(screen.getByTestId('step-embed-lexical').textContent).toMatch(/indexed and searched by their words/);
    expect(screen.getByTestId('step-library').dataset.state).toBe('ok');
  });

  it('can be dismissed once nothing is broken, and stays dismissed', () => {
    localStorage.clear();
    const { unmount } = render(<Onboarding status={base} documents={0} />);
    fireEvent.click(screen.getByTestId('onboarding-dismiss'));
    expect(screen.queryByTestId('onboarding')).toBeNull();
    unmount();
    render(<Onboarding status={base} documents={0} />);
    expect(screen.queryByTestId('onboarding')).toBeNull();
    localStorage.clear();
  });
});

describe('describeGate', () => {
  it('gives a share with the least it needed, and a negation or a year in words alone', () => {
    expect(describeGate({ signal: 'rare_words', value: 0.25, threshold: 0.55, why: 'the best passage holds only 1 of 4' })).toBe(
      'The best passage holds only 1 of 4 (share of distinctive words 0.25, needed 0.55).',
    );
    expect(
      describeGate({ signal: 'negation', value: 0, threshold: 1, why: 'the question asks what is not so (“not”), but no passage that holds its words says that anything is not' }),
    ).toBe('The question asks what is not so (“not”), but no passage that holds its words says that anything is not.');
  });
});
