import { describe, expect, it } from 'vitest';
import { renderAnswerElement } from './testing/renderMarkdown';
import mdJson from './testdata/claims-markdown.json';
import unsupportedJson from './testdata/answer-unsupported.json';
import type { Answer, Claim, ClaimResult, Verdict } from './types';

const unsupported = unsupportedJson as unknown as Answer;
// verify.Claims output (Go) for a Markdown answer with a list, a table, an
// emoji and Korean; the verdicts are set here.
const md = mdJson as unknown as { answer: string; claims: Claim[] };

function results(verdicts: Verdict[]): ClaimResult[] {
  return md.claims.map((claim, i) => ({ claim, results: null, verdict: verdicts[i] ?? '', score: 0, reason: `reason ${i}` }));
}

function flaggedText(div: HTMLElement, claim: number): string {
  return Array.from(div.querySelectorAll(`.claim-flag[data-claim="${claim}"]`))
    .map((el) => el.textContent)
    .join('');
}

describe('marking flagged claims in the rendered answer', () => {
  it('marks the unsupported claim of a real answer and no other text', () => {
    const div = renderAnswerElement(unsupported.answer, {
      known: new Set([1, 2]),
      tooltipId: 'tip',
      claims: unsupported.claims,
      claimIdPrefix: 't1-claim',
      claimTooltipId: 'claim-tip',
    });
    expect(flaggedText(div, 0).trim()).toBe('Shared exports 📎 have an upload limit of 40 MB per file.');
    expect(div.querySelectorAll('.claim-flag[data-claim="1"]')).toHaveLength(0);
    const first = div.querySelector<HTMLElement>('.claim-flag')!;
    expect(first.id).toBe('t1-claim-0');
    expect(first.tabIndex).toBe(0);
    expect(first.getAttribute('aria-describedby')).toBe('claim-tip');
    expect(first.dataset.verdict).toBe('unsupported');
    // Chips still render and know their claim; the text reads as written.
    const chips = Array.from(div.querySelectorAll<HTMLElement>('button.cite'));
    expect(chips.map((c) => [c.dataset.n, c.dataset.claim])).toEqual([
      ['1', '0'],
      ['2', '1'],
    ]);
    expect(div.textContent).toBe(unsupported.answer.replace(/\[#(\d)\]/g, '$1'));
  });

  it('keeps lists, tables and emphasis intact and marks list items, rows and sentences after astral characters', () => {
    // lead-in, item 1, item 2, table heading, row, sentence, sentence
    const verdicts: Verdict[] = ['', 'supported', 'uncited', '', 'partial', 'supported', 'uncited'];
    const div = renderAnswerElement(md.answer, { known: new Set([1]), tooltipId: 'tip', claims: results(verdicts), claimIdPrefix: 'p' });
    expect(div.querySelectorAll('ol > li')).toHaveLength(2);
    expect(div.querySelector('ol strong')?.textContent).toBe('Download');
    expect(div.querySelectorAll('table tbody tr')).toHaveLength(1);
    expect(div.querySelectorAll('table thead th')).toHaveLength(2);
    expect(flaggedText(div, 2)).toBe('설치 후 실행하세요 🚀 and it needs 40 MB.');
    expect(div.querySelector('ol > li:nth-child(2) .claim-flag')).not.toBeNull();
    expect(flaggedText(div, 4).trim()).toBe('download200 MB');
    expect(div.querySelectorAll('tbody td .claim-flag')).toHaveLength(2);
    expect(flaggedText(div, 6)).toBe('The app also sends telemetry.');
    expect(div.querySelectorAll('.claim-flag[data-claim="1"], .claim-flag[data-claim="5"]')).toHaveLength(0);
    // No private marks leak into the text.
    expect(div.textContent).not.toMatch(/[\ue000-\uefff\uf8ff\u27e6\u27e7]/);
    // Only each claim's first piece takes focus.
    expect(Array.from(div.querySelectorAll<HTMLElement>('.claim-flag[tabindex="0"]')).map((e) => e.dataset.claim)).toEqual(['2', '4', '6']);
  });

  it('marks a claim that spans emphasis in several pieces, one focusable', () => {
    const answer = 'Footnote is **fast** and _small_ [#1]. Done.';
    const claim: Claim = { text: 'Footnote is **fast** and _small_ [#1].', plain: 'Footnote is fast and small.', start: 0, end: 38, char_start: 0, char_end: 38, kind: 'sentence', markers: [1], inherited: false, echoed: null, non_claim: '' };
    const div = renderAnswerElement(answer, {
      known: new Set([1]),
      tooltipId: 'tip',
      claims: [{ claim, results: null, verdict: 'unsupported', score: 0 }],
    });
    expect(div.querySelector('strong .claim-flag')?.textContent).toBe('fast');
    expect(div.querySelector('em .claim-flag')?.textContent).toBe('small');
    expect(flaggedText(div, 0)).toBe('Footnote is fast and small .');
    expect(div.querySelectorAll('.claim-flag[tabindex="0"]')).toHaveLength(1);
  });

  it('does not mark text that already holds private-use characters, and shows it as written', () => {
    const answer = 'A \ue000 odd claim [#1].';
    const claim: Claim = { text: answer, plain: 'A odd claim.', start: 0, end: 0, char_start: 0, char_end: Array.from(answer).length, kind: 'sentence', markers: [1], inherited: false, echoed: null, non_claim: '' };
    const div = renderAnswerElement(answer, { known: new Set([1]), tooltipId: 'tip', claims: [{ claim, results: null, verdict: 'unsupported', score: 0 }] });
    expect(div.querySelector('.claim-flag')).toBeNull();
    expect(div.querySelectorAll('button.cite')).toHaveLength(1);
    expect(div.textContent).toBe('A \ue000 odd claim 1.');
  });

  it('renders code with markers as written, without marks', () => {
    const answer = 'Run `chmod +x [#1]` now [#1].';
    const claim: Claim = { text: answer, plain: 'Run chmod now.', start: 0, end: 0, char_start: 0, char_end: answer.length, kind: 'sentence', markers: [1], inherited: false, echoed: null, non_claim: '' };
    const div = renderAnswerElement(answer, { known: new Set([1]), tooltipId: 'tip', claims: [{ claim, results: null, verdict: 'partial', score: 0.5 }] });
    expect(div.querySelector('code')?.textContent).toBe('chmod +x [#1]');
    expect(div.querySelectorAll('button.cite')).toHaveLength(1);
    expect(flaggedText(div, 0)).toBe('Run  now .');
  });
});
