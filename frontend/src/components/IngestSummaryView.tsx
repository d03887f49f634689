import type { IngestSummary } from '../types';
import { formatDuration } from '../format';

/** What the last ingest did, including every file that failed and why. */
export function IngestSummaryView({ summary }: { summary: IngestSummary }) {
  const errors = summary.errors ?? [];
  return (
    <section
      className="ingest-summary"
      data-testid="ingest-summary"
      data-files-indexed={summary.files_indexed}
      data-files-unchanged={summary.files_unchanged}
      aria-label="Last indexing result"
    >
      <p>
        <strong>{summary.files_indexed}</strong> indexed · {summary.files_unchanged} unchanged ·{' '}
        {summary.files_skipped} skipped · {summary.files_failed} failed
      </p>
      <p className="muted">
        {summary.chunks_embedded} chunks embedded in {formatDuration(summary.duration_ms)}
      </p>
      {errors.length > 0 && (
        <ul className="ingest-errors">
          {errors.map((e) => (
            <li key={e.path}>
              <span className="path" title={e.path}>
                {e.path}
              </span>
              : {e.error}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
