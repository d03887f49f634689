// Citation markers in answer text. Only the exact form [#n] (n = 1..3 digits)
// is a citation; look-alikes such as [1], [ #1 ] or [#1000] stay plain text.
import type { Citation } from './types';

/** The one marker pattern; a fresh RegExp is made per use because /g regexes carry state. */
export const MARKER_SOURCE = String.raw`\[#(\d{1,3})\]`;

export type TextPart = { kind: 'text'; text: string } | { kind: 'cite'; n: number; marker: string };

/** Citation numbers in order of first appearance, without duplicates. */
export function extractMarkers(text: string): number[] {
  const seen = new Set<number>();
  for (const match of text.matchAll(new RegExp(MARKER_SOURCE, 'g'))) {
    seen.add(Number(match[1]));
  }
  return [...seen];
}

/**
 * Splits text into plain runs and citation parts. A marker becomes a citation
 * only when `known` holds its number; otherwise it stays in the text as written.
 */
export function splitCitations(text: string, known: ReadonlySet<number>): TextPart[] {
  const parts: TextPart[] = [];
  let plain = '';
  let last = 0;
  for (const match of text.matchAll(new RegExp(MARKER_SOURCE, 'g'))) {
    const n = Number(match[1]);
    const at = match.index;
    plain += text.slice(last, at);
    last = at + match[0].length;
    if (known.has(n)) {
      if (plain !== '') parts.push({ kind: 'text', text: plain });
      plain = '';
      parts.push({ kind: 'cite', n, marker: match[0] });
    } else {
      plain += match[0];
    }
  }
  plain += text.slice(last);
  if (plain !== '') parts.push({ kind: 'text', text: plain });
  return parts;
}

/** Citations indexed by their number. */
export function citationIndex(citations: readonly Citation[] | null | undefined): Map<number, Citation> {
  const index = new Map<number, Citation>();
  for (const c of citations ?? []) index.set(c.n, c);
  return index;
}

/** A short excerpt for the tooltip, cut at a word boundary. */
export function excerpt(text: string, max = 280): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
