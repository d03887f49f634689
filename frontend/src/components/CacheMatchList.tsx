import type { CacheMatch } from '../types';

/** What a cached answer matched, one line per rule of the answer cache. */
export function cacheMatchLines(m: CacheMatch): string[] {
  const lines: string[] = [];
  if (m.same_ask) {
    const shared = m.shared?.length ? ` (shared: ${m.shared.join(', ')})` : '';
    lines.push(`Same question after normalisation${shared}`);
  }
  if (m.passages) {
    lines.push(`Its own search found the ${m.passages_cited} cited passage(s), unchanged`);
  }
  if (m.same_index) lines.push('Same index, model and prompt template');
  if (m.revisions) lines.push('Cited documents unchanged');
  if (m.reverified) lines.push('Claims re-verified against the current passages');
  return lines;
}

/** The "what matched" part of the cache tooltip. */
export function CacheMatchList({ match }: { match: CacheMatch }) {
  return (
    <span data-testid="cache-matched">
      Matched:
      <ul className="cache-matched">
        {cacheMatchLines(match).map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </span>
  );
}
