import { describe, expect, it } from 'vitest';
import { tableBlocks } from './sourcetable';

const slice = (points: string[], r: { start: number; end: number }) => points.slice(r.start, r.end).join('');

describe('tableBlocks', () => {
  it('finds a header, a separator and rows, and leaves the rest as text', () => {
    const points = Array.from('Intro 😀\n| A | B |\n|:--|--:|\n| 1 | 2 |\n|x|\\| y|\nAfter.');
    const blocks = tableBlocks(points);
    expect(blocks.map((b) => b.kind)).toEqual(['text', 'table', 'text']);
    const t = blocks[1];
    if (t?.kind !== 'table') throw new Error('no table');
    expect(t.header.cells.map((c) => slice(points, c))).toEqual(['A', 'B']);
    expect(t.body.map((r) => r.cells.map((c) => slice(points, c)))).toEqual([['1', '2'], ['x', '\\| y']]);
    expect(slice(points, blocks[2] ?? { start: 0, end: 0 })).toBe('\nAfter.');
  });

  it('does not take pipes without a separator row for a table', () => {
    const points = Array.from('| not | a table |\nplain');
    expect(tableBlocks(points)).toEqual([{ kind: 'text', start: 0, end: points.length }]);
  });
});
