import { describe, expect, it } from 'vitest';
import { claimRanges, claimWhy, codePointIndex, markerClaims, resultFor, supportSpans } from './claims';
import unsupportedJson from './testdata/answer-unsupported.json';
import verifiedJson from './testdata/answer-verified.json';
import type { Answer } from './types';

// Real `footnote ask --json` output (fake model misquoting "20 MB" as
// "40 MB"), so offsets are exactly what Go emits: code points.
const unsupported = unsupportedJson as unknown as Answer;
const verified = verifiedJson as unknown as Answer;

describe('code point offsets', () => {
  it('maps code points to UTF-16 across emoji and Korean', () => {
    const text = 'a📎가b';
    const index = codePointIndex(text);
    expect(index).toEqual([0, 1, 3, 4, 5]);
    expect(text.slice(index[2], index[4])).toBe('가b');
  });

  it('finds each claim of a real answer in its text although an emoji comes first', () => {
    const claims = unsupported.claims!;
    // The fixture really has an astral character before the second claim.
    expect(unsupported.answer.indexOf('📎')).toBeLessThan(unsupported.answer.indexOf('It also notes'));
    const ranges = claimRanges(unsupported.answer, claims);
    for (const r of ranges) {
      expect(unsupported.answer.slice(r.start, r.end)).toBe(claims[r.claim]!.claim.text);
    }
    // Taking Go's code point offsets as UTF-16 indexes would cut the claim.
    const c = claims[1]!.claim;
    expect(unsupported.answer.slice(c.char_start, c.char_end)).not.toBe(c.text);
  });

  it('clamps ranges that run past the text', () => {
    const [r] = claimRanges('short', [{ ...verified.claims![0]!, claim: { ...verified.claims![0]!.claim, char_start: 2, char_end: 99 } }]);
    expect(r).toEqual({ claim: 0, start: 2, end: 5 });
  });
});

describe('markers and their claims', () => {
  it('assigns each marker to the claim it stands in', () => {
    const owners = markerClaims(unsupported.answer, unsupported.claims!);
    const at = (marker: string) => unsupported.answer.indexOf(marker);
    expect(owners.get(at('[#1]'))).toBe(0);
    expect(owners.get(at('[#2]'))).toBe(1);
  });

  it('gives a marker after its sentence to the nearest earlier claim checked against it', () => {
    const claims = verified.claims!.map((c) => ({ ...c, claim: { ...c.claim } }));
    // Pretend the first claim ends before its marker, as "… colleagues. [#1]" may.
    claims[0]!.claim.char_end = verified.answer.indexOf('[#1]') - 1;
    const owners = markerClaims(verified.answer, claims);
    expect(owners.get(verified.answer.indexOf('[#1]'))).toBe(0);
  });

  it('finds the result and support span of the clicked claim, and the best one for other citations', () => {
    const r = resultFor(unsupported.claims, 0, 1);
    expect(r?.verdict).toBe('unsupported');
    expect(r?.span.text).toBe('Shared exports 📎 have an upload limit of 20 MB per file.');
    expect(resultFor(unsupported.claims, -1, 2)?.span.text).toMatch(/^The footnote command does everything/);
    expect(resultFor(unsupported.claims, 0, 7)).toBeUndefined();
    const spans = supportSpans(unsupported.claims, 0, [1, 2]);
    expect(spans.get(1)?.offsets).toEqual({ start: 27, end: 83, unit: 'char' });
    expect(spans.get(2)?.offsets.start).toBe(20);
  });
});

describe('claimWhy', () => {
  it('says which citation does not support the claim, with Go’s reason', () => {
    expect(claimWhy(unsupported.claims![0]!)).toBe('not supported by [#1]: the passage says 20 MB, the claim says 40 MB');
  });

  it('names the deciding citation of a claim with several, and uncited claims', () => {
    const base = unsupported.claims![0]!;
    expect(claimWhy({ ...base, verdict: 'partial', reason: '[#2]: only partly supported' })).toBe('only partly supported by [#2]: only partly supported');
    expect(claimWhy({ ...base, verdict: 'uncited', results: null, reason: 'no citation covers this claim' })).toBe(
      'not cited: no citation covers this claim',
    );
  });
});
