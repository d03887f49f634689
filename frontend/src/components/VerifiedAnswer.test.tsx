import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Turn } from '../chatState';
import unsupportedJson from '../testdata/answer-unsupported.json';
import verifiedJson from '../testdata/answer-verified.json';
import type { Answer } from '../types';
import { OpenSourceContext, type SourceRequest } from '../viewer';
import { TurnView } from './TurnView';

// Real `footnote ask --json` answers: one whose claims all check out, one
// where the (fake) model misquoted "20 MB" as "40 MB" citing [#1].
const unsupported = unsupportedJson as unknown as Answer;
const verified = verifiedJson as unknown as Answer;

function turn(answer: Answer, text = answer.answer): Turn {
  return { key: 7, requestId: answer.request_id, question: answer.question, text, citations: answer.citations ?? [], phase: 'done', answer, error: null };
}

afterEach(cleanup);

describe('a verified answer in the chat', () => {
  it('marks the unsupported claim with a keyboard-reachable tooltip saying why', () => {
    render(<TurnView turn={turn(unsupported)} />);
    const flag = document.querySelector<HTMLElement>('.claim-flag[tabindex="0"]')!;
    expect(flag.textContent?.trim()).toBe('Shared exports 📎 have an upload limit of 40 MB per file.');
    expect(screen.queryByTestId('claim-tooltip')).toBeNull();
    fireEvent.focus(flag);
    const tip = screen.getByTestId('claim-tooltip');
    expect(tip.textContent).toBe('not supported by [#1]: the passage says 20 MB, the claim says 40 MB');
    expect(flag.getAttribute('aria-describedby')).toBe(tip.id);
    fireEvent.blur(flag);
    expect(screen.queryByTestId('claim-tooltip')).toBeNull();
    fireEvent.mouseOver(flag);
    expect(screen.getByTestId('claim-tooltip')).toBeTruthy();
  });

  it('shows the chip’s span, verdict, score and signals in the citation tooltip', () => {
    render(<TurnView turn={turn(unsupported)} />);
    const chip = screen.getByRole('button', { name: 'Citation 1' });
    fireEvent.mouseOver(chip);
    const tip = screen.getByTestId('citation-tooltip');
    expect(within(tip).getByTestId('tooltip-verdict').textContent).toBe('not supported · score 0.20');
    expect(within(tip).getByTestId('tooltip-span').textContent).toBe('Shared exports 📎 have an upload limit of 20 MB per file.');
    expect(within(tip).getByTestId('tooltip-signals').textContent).toBe('lexical 0.81');
    expect(within(tip).getByTestId('tooltip-failed-checks').textContent).toBe('number: passage 20 MB, claim 40 MB');
    expect(within(tip).getByTestId('tooltip-missing').textContent).toBe('missing: 40');
    fireEvent.mouseOut(chip);
    fireEvent.mouseOver(screen.getByRole('button', { name: 'Citation 2' }));
    const second = screen.getByTestId('citation-tooltip');
    expect(within(second).getByTestId('tooltip-verdict').textContent).toBe('supported · score 0.86');
    expect(within(second).queryByTestId('tooltip-failed-checks')).toBeNull();
  });

  it('lists the entailment model’s signals when one ran', () => {
    const answer = structuredClone(unsupported);
    const result = answer.claims?.[0]?.results?.[0];
    if (!result) throw new Error('the recorded answer has no first claim result');
    result.signals = { ...result.signals, entailment: 0.04, contradiction: 0.93 };
    render(<TurnView turn={turn(answer)} />);
    fireEvent.mouseOver(screen.getByRole('button', { name: 'Citation 1' }));
    const tip = screen.getByTestId('citation-tooltip');
    expect(within(tip).getByTestId('tooltip-signals').textContent).toBe('lexical 0.81 · entailment 0.04 · contradiction 0.93');
  });

  it('opens the source with the clicked claim’s supporting spans', () => {
    const open = vi.fn<(r: SourceRequest) => void>();
    render(
      <OpenSourceContext.Provider value={open}>
        <TurnView turn={turn(unsupported)} />
      </OpenSourceContext.Provider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Citation 1' }));
    expect(open).toHaveBeenCalledTimes(1);
    const req = open.mock.calls[0]![0];
    expect(req.n).toBe(1);
    expect(req.spans?.get(1)?.offsets).toEqual({ start: 27, end: 83, unit: 'char' });
    expect(req.spans?.get(2)?.text).toMatch(/^The footnote command/);
  });

  it('opens a source from the list under the answer on its best supporting span', () => {
    const open = vi.fn<(r: SourceRequest) => void>();
    render(
      <OpenSourceContext.Provider value={open}>
        <TurnView turn={turn(unsupported)} />
      </OpenSourceContext.Provider>,
    );
    const sources = document.querySelectorAll<HTMLButtonElement>('ol.sources button');
    expect(sources).toHaveLength(2);
    fireEvent.click(sources[0]!);
    const req = open.mock.calls[0]![0];
    expect(req.n).toBe(1);
    expect(req.spans?.get(1)?.text).toBe('Shared exports 📎 have an upload limit of 20 MB per file.');
  });

  it('lists the failing claim in the footer and jumps to it', () => {
    render(<TurnView turn={turn(unsupported)} />);
    const footer = screen.getByTestId('claim-check');
    expect(footer.textContent).toMatch(/^1 of 2 claims verified/);
    const jump = within(footer).getByTestId('claim-jump');
    expect(jump.textContent).toContain('the passage says 20 MB, the claim says 40 MB');
    fireEvent.click(jump);
    expect(document.activeElement).toBe(document.getElementById('turn-7-claim-0'));
    expect(screen.getByTestId('claim-tooltip')).toBeTruthy();
  });

  it('marks nothing in a fully verified answer and says so', () => {
    render(<TurnView turn={turn(verified)} />);
    expect(document.querySelector('.claim-flag')).toBeNull();
    expect(screen.getByTestId('claim-check').textContent).toBe('2 of 2 claims verified');
  });

  it('does not place claim ranges on text they were not computed for', () => {
    render(<TurnView turn={turn(unsupported, `${unsupported.answer} more`)} />);
    expect(document.querySelector('.claim-flag')).toBeNull();
    expect(screen.queryByTestId('claim-jump')).toBeNull();
  });

  it('shows how the answer was made: the chain with the verification step, data tier and confidence', () => {
    render(<TurnView turn={turn(verified)} />);
    const prov = screen.getByTestId('provenance');
    const steps = Array.from(within(prov).getByTestId('provenance-chain').querySelectorAll('li')).map((li) => li.dataset.step);
    expect(steps).toEqual(['FTS5:bm25', 'Vector:sqlite-vec', 'Fusion:RRF(k=60)', 'LLM:ollama/footnote-test', 'Verify:strict(lexical+semantic)']);
    expect(within(prov).getByTestId('provenance-tier').textContent).toBe('1 · your documents');
    expect(within(prov).getByTestId('provenance-confidence').textContent).toBe('0.66');
  });
});
