import { describe, expect, it } from 'vitest';
import { excerpt, extractMarkers, splitCitations } from './citations';

describe('extractMarkers', () => {
  it('accepts only the exact [#n] form with 1 to 3 digits', () => {
    expect(extractMarkers('Run it [#1].')).toEqual([1]);
    expect(extractMarkers('a [#12] b [#999]')).toEqual([12, 999]);
    expect(extractMarkers('[1] and [ #1 ] and [# 1] and [#1 ] and vec![1]')).toEqual([]);
    expect(extractMarkers('too long [#1000]')).toEqual([]);
    expect(extractMarkers('[#a] [#] [##1]')).toEqual([]);
  });

  it('returns each number once, in order of first appearance', () => {
    expect(extractMarkers('[#3] x [#1] y [#3] [#2]')).toEqual([3, 1, 2]);
  });
});

describe('splitCitations', () => {
  it('splits known markers into citation parts', () => {
    expect(splitCitations('Install it [#1] then run [#2].', new Set([1, 2]))).toEqual([
      { kind: 'text', text: 'Install it ' },
      { kind: 'cite', n: 1, marker: '[#1]' },
      { kind: 'text', text: ' then run ' },
      { kind: 'cite', n: 2, marker: '[#2]' },
      { kind: 'text', text: '.' },
    ]);
  });

  it('keeps unknown numbers and look-alikes as plain text', () => {
    expect(splitCitations('a [#7] b [1] c [#1000] d', new Set([1]))).toEqual([
      { kind: 'text', text: 'a [#7] b [1] c [#1000] d' },
    ]);
  });

  it('handles adjacent markers and markers at the edges', () => {
    expect(splitCitations('[#1][#2]', new Set([1, 2]))).toEqual([
      { kind: 'cite', n: 1, marker: '[#1]' },
      { kind: 'cite', n: 2, marker: '[#2]' },
    ]);
  });
});

describe('excerpt', () => {
  it('keeps short text and cuts long text at a word boundary', () => {
    expect(excerpt('  short\n text ')).toBe('short text');
    const long = 'word '.repeat(100);
    const cut = excerpt(long, 50);
    expect(cut.length).toBeLessThanOrEqual(51);
    expect(cut.endsWith('word…')).toBe(true);
  });
});
