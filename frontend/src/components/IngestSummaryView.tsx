import type { IngestSummary } from '../types';
import { formatDuration } from '../format';

interface Props {
  summary: IngestSummary;
  onDismiss?: () => void;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

/** What the last add or re-scan did, in two lines; each failed file and its reason is in the file list. */
export function IngestSummaryView({ summary, onDismiss }: Props) {
  return (
    <section
      className="ingest-summary"
      data-testid="ingest-summary"
      data-files-indexed={summary.files_indexed}
      data-files-unchanged={summary.files_unchanged}
      data-files-failed={summary.files_failed}
      aria-label="Last indexing result"
    >
      {onDismiss && (
        <button type="button" className="summary-close" onClick={onDismiss} aria-label="Dismiss the result">
          ✕
        </button>
      )}
      <p>
        <strong>{summary.files_indexed}</strong> indexed · {summary.files_unchanged} unchanged ·{' '}
        {summary.files_skipped} skipped ·{' '}
        <span className={summary.files_failed ? 'count-failed' : ''}>{summary.files_failed} failed</span>
      </p>
      <p className="muted">
        {summary.chunks_embedded} chunks embedded in {formatDuration(summary.duration_ms)}
        {summary.files_failed > 0 ? ' · reasons under Failed below' : ''}
      </p>
      {(summary.files_kept_out ?? 0) > 0 && (
        <p className="muted" data-testid="kept-out-count">
          {summary.files_kept_out} look like a chat or an answer and are kept out of evidence (see the file list)
        </p>
      )}
      {(summary.notes ?? []).length > 0 && (
        <ul className="muted ingest-notes" data-testid="ingest-notes" aria-label="Notes on indexed files">
          {(summary.notes ?? []).map((n) => (
            <li key={n.path + n.error}>
              {baseName(n.path)}: {n.error}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
