// Slicing a document's stored text by citation offsets. Offsets count
// Unicode code points (corpus.UnitChar), not UTF-16 units, so the text is
// split into code points before slicing; string.slice would drift after
// the first emoji or other astral character.

export interface SpanParts {
  before: string;
  span: string;
  after: string;
}

/** text[start:end] in code points, with what comes before and after; offsets are clamped. */
export function sliceByCodePoints(text: string, start: number, end: number): SpanParts {
  const points = Array.from(text);
  const s = Math.max(0, Math.min(start, points.length));
  const e = Math.max(s, Math.min(end, points.length));
  return {
    before: points.slice(0, s).join(''),
    span: points.slice(s, e).join(''),
    after: points.slice(e).join(''),
  };
}

/** A file:// link for a local path (for exports; the app opens files only by document id). */
export function fileLink(path: string): string {
  if (!path) return '';
  let p = path.replace(/\\/g, '/');
  if (!p.startsWith('/')) p = `/${p}`;
  return `file://${encodeURI(p).replace(/#/g, '%23').replace(/\?/g, '%3F')}`;
}
