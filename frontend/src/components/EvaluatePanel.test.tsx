import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import { EvaluateLauncher, EvaluatePanel, type EvalReport } from './EvaluatePanel';

const report: EvalReport = {
  questions: 3,
  answerable: 2,
  unanswerable: 1,
  answered: 2,
  k: 10,
  precision: 0.5,
  over_refusal: 0,
  under_refusal: 1,
  citation_hit_rate: 0.5,
  compliance: 1,
  containment: 0.5,
  word_containment: 0.75,
  phrase_containment: 0.25,
  non_corpus_citation_rate: 0,
  recall_at_k: 1,
  mrr_at_10: 0.75,
  ndcg_at_10: 0.8,
  citation_recall: 0.75,
  citation_precision: 0.9,
  citation_answers: 1,
  labels: { OK: 1, REFUSAL_OK: 1 },
  source: 'gold.json',
  runs: 1,
  passed: false,
  gates: [
    { metric: 'precision', min: true, value: 0.8, actual: 0.5, passed: false },
    { metric: 'compliance', min: true, value: 0.98, actual: 1, passed: true },
  ],
  rows: [
    { qid: 'q01', run: 1, question: 'How do I install on Linux?', answerable: true, answered: true, hit: true, compliant: true, contains_claim: true, contains_word: true, contains_phrase: true, citations: 1, non_corpus_citations: 0, label: 'OK', cited: ['install/linux'], answer: 'Run it [#1].', citation_recall: 0.75, citation_precision: 0.9 },
    { qid: 'u01', run: 1, question: 'What does it cost?', answerable: false, answered: false, hit: false, compliant: true, contains_claim: null, contains_word: null, contains_phrase: null, citations: 0, non_corpus_citations: 0, label: 'REFUSAL_OK', cited: null, answer: '', citation_recall: null, citation_precision: null },
  ],
  markdown: '# Footnote evaluation',
};

describe('EvaluatePanel', () => {
  let bridge: FakeBridge;
  let evaluate: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    bridge = installFakeBridge();
    evaluate = vi.fn();
    const app = bridge.app as unknown as Record<string, unknown>;
    app.EvaluateCollection = evaluate;
    app.DefaultGoldSet = vi.fn().mockResolvedValue('/lib/gold.json');
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('prefills the gold set, shows progress while running, then the metrics, gates and rows', async () => {
    let finish: (r: EvalReport) => void = () => {};
    evaluate.mockImplementation(() => new Promise<EvalReport>((resolve) => (finish = resolve)));
    render(<EvaluatePanel onClose={() => {}} />);
    const gold = await screen.findByTestId<HTMLInputElement>('eval-gold');
    await waitFor(() => expect(gold.value).toBe('/lib/gold.json'));
    fireEvent.change(screen.getByTestId('eval-collection'), { target: { value: 'work' } });
    fireEvent.click(screen.getByTestId('eval-run'));
    expect(evaluate).toHaveBeenCalledWith('/lib/gold.json', 'work');
    bridge.emit('eval:progress', { done: 1, total: 3, qid: 'q01' });
    expect((await screen.findByTestId('eval-progress')).textContent).toMatch(/1 of 3 questions \(q01\)/);
    finish(report);
    expect((await screen.findByTestId('eval-verdict')).textContent).toMatch(/Some quality gates failed/);
    expect(screen.getByTestId('metric-precision').textContent).toBe('50.0%');
    expect(screen.getByTestId('metric-under_refusal').textContent).toBe('100.0%');
    expect(screen.getByTestId('metric-containment').textContent).toBe('50.0%');
    expect(screen.getByTestId('metric-word_containment').textContent).toBe('75.0%');
    expect(screen.getByTestId('metric-phrase_containment').textContent).toBe('25.0%');
    expect(screen.getByTestId('eval-gates').textContent).toMatch(/FAIL precision ≥ 0.80 \(got 0.500\)/);
    expect(screen.getByTestId('eval-gates').textContent).toMatch(/PASS compliance/);
    const rows = screen.getByTestId('eval-rows').textContent ?? '';
    expect(rows).toMatch(/q01OK/);
    expect(rows).toMatch(/u01REFUSAL_OK/);
    expect(screen.getByTestId('metric-citation_recall').textContent).toBe('75.0%');
    expect(screen.getByTestId('metric-citation_precision').textContent).toBe('90.0%');
    expect(screen.getByTestId('eval-citation-quality').textContent).toMatch(/over 1 answers/);
    expect(rows).toMatch(/install\/linux75\.0%90\.0%/);
    expect(rows).toMatch(/REFUSAL_OK.*n\/an\/a/);
    expect(screen.queryByTestId('eval-progress')).toBeNull();
  });

  it('shows n/a, not 0%, when no answer had cited claims', async () => {
    evaluate.mockResolvedValue({ ...report, citation_recall: null, citation_precision: null, citation_answers: 0 });
    render(<EvaluatePanel onClose={() => {}} />);
    const gold = await screen.findByTestId<HTMLInputElement>('eval-gold');
    await waitFor(() => expect(gold.value).toBe('/lib/gold.json'));
    fireEvent.click(screen.getByTestId('eval-run'));
    expect((await screen.findByTestId('metric-citation_recall')).textContent).toBe('n/a');
    expect(screen.getByTestId('metric-citation_precision').textContent).toBe('n/a');
  });

  it('shows a failed evaluation as one sentence', async () => {
    evaluate.mockRejectedValue('read gold QA set: open /nope.json: no such file or directory');
    render(<EvaluatePanel onClose={() => {}} />);
    const gold = await screen.findByTestId<HTMLInputElement>('eval-gold');
    await waitFor(() => expect(gold.value).toBe('/lib/gold.json'));
    fireEvent.change(gold, { target: { value: '/nope.json' } });
    fireEvent.click(screen.getByTestId('eval-run'));
    expect((await screen.findByRole('alert')).textContent).toMatch(/no such file/);
  });

  it('opens from the launcher and closes again', async () => {
    render(<EvaluateLauncher />);
    expect(screen.queryByTestId('evaluate-panel')).toBeNull();
    fireEvent.click(screen.getByTestId('evaluate-button'));
    expect(await screen.findByTestId('evaluate-panel')).toBeTruthy();
    fireEvent.click(screen.getByTestId('evaluate-close'));
    expect(screen.queryByTestId('evaluate-panel')).toBeNull();
  });
});
