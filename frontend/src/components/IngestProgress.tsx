import { formatDuration } from '../format';
import type { IngestProgressEvent } from '../types';

/** Progress of a running ingest, driven by ingest:progress events: files, rate, ETA and the current file. */
export function IngestProgress({ progress }: { progress: IngestProgressEvent | null }) {
  const total = progress?.files_total ?? 0;
  const done = progress?.files_done ?? 0;
  const rate = progress?.files_per_sec ?? 0;
  const eta = progress?.eta_ms ?? 0;
  return (
    <div className="ingest-progress" data-testid="ingest-progress">
      <progress max={total || 1} value={total ? done : undefined} aria-label="Indexing progress" />
      <div className="progress-text">
        {total ? `${done} / ${total} files` : 'Scanning…'}
        {progress?.chunks ? ` · ${progress.chunks} chunks` : ''}
        {rate > 0 ? ` · ${rate < 10 ? rate.toFixed(1) : Math.round(rate)} files/s` : ''}
        {eta > 0 ? ` · about ${formatDuration(eta)} left` : ''}
      </div>
      {progress?.current && (
        <div className="progress-current" title={progress.current}>
          {/* bdi keeps a path's leading slash in place inside the right-aligned (rtl) ellipsis box. */}
          <bdi>{progress.current}</bdi>
        </div>
      )}
    </div>
  );
}
