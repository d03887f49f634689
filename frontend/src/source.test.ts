import { describe, expect, it } from 'vitest';
import { fileLink, sliceByCodePoints } from './source';

describe('sliceByCodePoints', () => {
  it('slices by code points, not UTF-16 units', () => {
    // 😀 is two UTF-16 units but one code point; string.slice would shift the span by one.
    const text = 'a😀b — cited span here. tail';
    const start = Array.from('a😀b — ').length;
    const end = start + 'cited span'.length;
    const parts = sliceByCodePoints(text, start, end);
    expect(parts.span).toBe('cited span');
    expect(parts.before + parts.span + parts.after).toBe(text);
  });

  it('clamps offsets outside the text', () => {
    expect(sliceByCodePoints('abc', 2, 99)).toEqual({ before: 'ab', span: 'c', after: '' });
    expect(sliceByCodePoints('abc', 5, 1)).toEqual({ before: 'abc', span: '', after: '' });
  });
});

describe('fileLink', () => {
  it('builds file URLs for POSIX and Windows paths, escaping # and spaces', () => {
    expect(fileLink('/home/me/My Notes/#1.md')).toBe('file:///home/me/My%20Notes/%231.md');
    expect(fileLink('C:\\Docs\\a.pdf')).toBe('file:///C:/Docs/a.pdf');
    expect(fileLink('')).toBe('');
  });
});
