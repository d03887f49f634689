import type { IngestProgressEvent } from '../types';

/** Progress of a running ingest, driven by ingest:progress events. */
export function IngestProgress({ progress }: { progress: IngestProgressEvent | null }) {
  const total = progress?.files_total ?? 0;
  const done = progress?.files_done ?? 0;
  return (
    <div className="ingest-progress" data-testid="ingest-progress">
      <progress max={total || 1} value={total ? done : undefined} aria-label="Indexing progress" />
      <div className="progress-text">
        {total ? `${done} / ${total} files` : 'Scanning…'}
        {progress?.chunks ? ` · ${progress.chunks} chunks` : ''}
      </div>
      {progress?.current && (
        <div className="progress-current" title={progress.current}>
          {progress.current}
        </div>
      )}
    </div>
  );
}
