import { useEffect, useState } from 'react';
import { api, errorMessage, onEvent } from '../api';
import { formatBytes } from '../format';
import type { ModelProgressEvent } from '../types';

interface Props {
  /** Called after a successful download so Status (and the model state) refreshes. */
  onDownloaded: () => void;
}

/** First-run fix for a missing embedding model: download it with visible progress. */
export function ModelDownload({ onDownloaded }: Props) {
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<ModelProgressEvent | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [finished, setFinished] = useState(false);

  useEffect(() => onEvent('model:progress', setProgress), []);

  const download = async () => {
    if (running) return;
    setRunning(true);
    setError(null);
    setFinished(false);
    setProgress(null);
    try {
      await api.downloadModel();
      setFinished(true);
      onDownloaded();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRunning(false);
    }
  };

  return (
    <div className="model-download" data-testid="model-download">
      <button
        type="button"
        className="primary"
        onClick={() => void download()}
        disabled={running}
        data-testid="download-model-button"
      >
        {running ? 'Downloading…' : 'Download model'}
      </button>
      {running && <DownloadProgress progress={progress} />}
      {finished && !running && <span className="muted">Download finished.</span>}
      {error && (
        <p className="download-error" role="alert" data-testid="download-error">
          {error}
        </p>
      )}
    </div>
  );
}

function DownloadProgress({ progress }: { progress: ModelProgressEvent | null }) {
  const total = progress?.total ?? 0;
  const done = progress?.done ?? 0;
  return (
    <div className="download-progress" data-testid="download-progress">
      <progress max={total || 1} value={total ? done : undefined} aria-label="Model download progress" />
      <span className="progress-text">
        {progress ? (total ? `${formatBytes(done)} / ${formatBytes(total)}` : formatBytes(done)) : 'Starting…'}
      </span>
      {progress?.file && (
        <span className="progress-current" title={progress.file}>
          {progress.file}
        </span>
      )}
    </div>
  );
}
