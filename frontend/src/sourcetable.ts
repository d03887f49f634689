// Markdown pipe tables in a document's stored text (ingest stores tables
// from spreadsheets, DOCX, HTML and ODT that way, one row per line), found
// so the source viewer can show them as tables. Every range is in code
// points of the text, like citation offsets, so highlights stay exact.

/** A range [start, end) in code points. */
export interface Range {
  start: number;
  end: number;
}

export interface TableRow {
  cells: Range[];
}

/** A run of plain text, or a table with its header row apart. */
export type Block = ({ kind: 'text' } & Range) | ({ kind: 'table'; header: TableRow; body: TableRow[] } & Range);

/** Splits text (as code points) into text runs and Markdown tables: a header row, a |---| row, and rows. */
export function tableBlocks(points: readonly string[]): Block[] {
  const lines = splitLines(points);
  const blocks: Block[] = [];
  let textStart = 0;
  const line = (k: number): Range => lines[k] ?? { start: points.length, end: points.length };
  for (let i = 0; i < lines.length; ) {
    const header = rowCells(points, line(i));
    const sep = i + 1 < lines.length ? lineText(points, line(i + 1)) : '';
    if (!header || !isSeparator(sep)) {
      i++;
      continue;
    }
    let j = i + 2;
    const body: TableRow[] = [];
    for (; j < lines.length; j++) {
      const row = rowCells(points, line(j));
      if (!row) break;
      body.push(row);
    }
    const start = line(i).start;
    const end = line(j - 1).end;
    if (start > textStart) blocks.push({ kind: 'text', start: textStart, end: start });
    blocks.push({ kind: 'table', start, end, header, body });
    textStart = end;
    i = j;
  }
  if (textStart < points.length || blocks.length === 0) blocks.push({ kind: 'text', start: textStart, end: points.length });
  return blocks;
}

function splitLines(points: readonly string[]): Range[] {
  const out: Range[] = [];
  let start = 0;
  for (let i = 0; i <= points.length; i++) {
    if (i === points.length || points[i] === '\n') {
      out.push({ start, end: i });
      start = i + 1;
    }
  }
  return out;
}

function lineText(points: readonly string[], r: Range): string {
  return points.slice(r.start, r.end).join('');
}

function isSeparator(line: string): boolean {
  const t = line.trim();
  return t.startsWith('|') && t.endsWith('|') && /-/.test(t) && /^[|\-:\s]+$/.test(t);
}

/** The cells of a line that is a table row (| a | b |), as trimmed ranges; null otherwise. */
function rowCells(points: readonly string[], line: Range): TableRow | null {
  let s = line.start;
  let e = line.end;
  const at = (k: number): string => points[k] ?? '';
  while (s < e && /\s/.test(at(s))) s++;
  while (e > s && /\s/.test(at(e - 1))) e--;
  if (e - s < 2 || at(s) !== '|' || at(e - 1) !== '|') return null;
  const cells: Range[] = [];
  let cellStart = s + 1;
  for (let i = s + 1; i < e; i++) {
    if (at(i) === '|' && at(i - 1) !== '\\') {
      let a = cellStart;
      let b = i;
      while (a < b && /\s/.test(at(a))) a++;
      while (b > a && /\s/.test(at(b - 1))) b--;
      cells.push({ start: a, end: b });
      cellStart = i + 1;
    }
  }
  return { cells };
}
