// Claim verification results (backend/verify) mapped onto the answer text
// and the documents. Go counts claim ranges and span offsets in Unicode code
// points; JavaScript strings index UTF-16 units, so every offset is converted
// here before it touches a string (an emoji or other astral character before
// a range would otherwise shift it by one).
import { MARKER_SOURCE } from './citations';
import type { ClaimResult, SupportSpan, Verdict, VerifyResult } from './types';

/** Verdicts that are marked in the answer text. */
const FLAGGED: ReadonlySet<Verdict> = new Set<Verdict>(['partial', 'unsupported', 'uncited']);

export function isFlagged(verdict: Verdict): boolean {
  return FLAGGED.has(verdict);
}

/** UTF-16 index of each code point index 0..count (inclusive), for one text. */
export function codePointIndex(text: string): number[] {
  const out = [0];
  let at = 0;
  for (const ch of text) {
    at += ch.length;
    out.push(at);
  }
  return out;
}

/** A claim's range in the answer in UTF-16 units, clamped to the text. */
export interface ClaimRange {
  /** Index into the answer's claims. */
  claim: number;
  start: number;
  end: number;
}

/** The UTF-16 ranges of the claims, in claim order; out-of-range claims are clamped. */
export function claimRanges(text: string, claims: readonly ClaimResult[]): ClaimRange[] {
  const index = codePointIndex(text);
  const last = index.length - 1;
  const at = (cp: number) => index[Math.max(0, Math.min(cp, last))]!;
  return claims.map((c, claim) => {
    const start = at(c.claim.char_start);
    return { claim, start, end: Math.max(start, at(c.claim.char_end)) };
  });
}

/**
 * The claim each [#n] marker of the text belongs to, keyed by the marker's
 * UTF-16 index: the claim whose range holds it, else the nearest claim
 * before it that is checked against n (a marker standing after the
 * sentence it cites), else -1.
 */
export function markerClaims(text: string, claims: readonly ClaimResult[]): Map<number, number> {
  const ranges = claimRanges(text, claims);
  const out = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(MARKER_SOURCE, 'g'))) {
    const n = Number(m[1]);
    const at = m.index;
    let owner = ranges.find((r) => at >= r.start && at < r.end)?.claim ?? -1;
    if (owner < 0) {
      for (const r of ranges) {
        if (r.start <= at && (claims[r.claim]!.claim.markers ?? []).includes(n)) owner = r.claim;
      }
    }
    out.set(at, owner);
  }
  return out;
}

/**
 * The verdict of claim `claim` against citation n; without that pair, the
 * best result any claim got against n (so a citation opened from the
 * source list still shows a span).
 */
export function resultFor(claims: readonly ClaimResult[] | null | undefined, claim: number, n: number): VerifyResult | undefined {
  const own = claims?.[claim]?.results?.find((r) => r.n === n && hasSpan(r));
  if (own) return own;
  let best: VerifyResult | undefined;
  for (const c of claims ?? []) {
    for (const r of c.results ?? []) {
      if (r.n === n && hasSpan(r) && (!best || r.score > best.score)) best = r;
    }
  }
  return best;
}

function hasSpan(r: VerifyResult): boolean {
  return r.span.offsets.end > r.span.offsets.start;
}

/** The supporting span to highlight for each citation number, preferring the clicked claim's. */
export function supportSpans(claims: readonly ClaimResult[] | null | undefined, claim: number, ns: readonly number[]): Map<number, SupportSpan> {
  const out = new Map<number, SupportSpan>();
  for (const n of ns) {
    const r = resultFor(claims, claim, n);
    if (r) out.set(n, r.span);
  }
  return out;
}

/**
 * One line saying why a claim is marked, from the reasons Go gave, e.g.
 * "not supported by [#2]: the passage says 20 MB, the claim says 40 MB".
 */
export function claimWhy(c: ClaimResult): string {
  const reason = c.reason ?? '';
  if (c.verdict === 'uncited') return `not cited: ${reason || 'no citation covers this claim'}`;
  const phrase = c.verdict === 'partial' ? 'only partly supported by' : 'not supported by';
  // With several citations Go names the deciding one: "[#2]: the passage …".
  const named = /^\[#(\d{1,3})\]: ([\s\S]*)$/.exec(reason);
  const markers = named ? [Number(named[1])] : (c.results ?? []).map((r) => r.n);
  const why = named ? named[2]! : reason;
  const by = markers.length > 0 ? markers.map((n) => `[#${n}]`).join(', ') : 'its citation';
  return why ? `${phrase} ${by}: ${why}` : `${phrase} ${by}`;
}

/** Words for a verdict, for tooltips and exports. */
export function verdictLabel(verdict: Verdict): string {
  switch (verdict) {
    case 'supported':
      return 'supported';
    case 'partial':
      return 'partly supported';
    case 'unsupported':
      return 'not supported';
    case 'uncited':
      return 'not cited';
    default:
      return 'not a claim';
  }
}
