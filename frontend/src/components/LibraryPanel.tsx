import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api';
import type { DocumentInfo, IngestProgressEvent, IngestSummary } from '../types';
import { DocumentList } from './DocumentList';
import { IngestProgress } from './IngestProgress';
import { IngestSummaryView } from './IngestSummaryView';
import { Banner } from './StatusBar';

interface Props {
  documents: DocumentInfo[];
  documentsError: string | null;
  /** The latest ingest:progress of any running ingest (the user's or one the app started); null when none. */
  progress: IngestProgressEvent | null;
  /** Called after an ingest finishes (successfully or not) so counts refresh. */
  onIngested: () => void;
}

/** Folder picker, indexing with progress and summary, and the document list. */
export function LibraryPanel({ documents, documentsError, progress, onIngested }: Props) {
  const [folder, setFolder] = useState('');
  const [running, setRunning] = useState(false);
  const [summary, setSummary] = useState<IngestSummary | null>(null);
  const [error, setError] = useState<string | null>(null);

  const browse = async () => {
    setError(null);
    try {
      const picked = await api.pickFolder();
      if (picked) setFolder(picked);
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  const index = async (event: FormEvent) => {
    event.preventDefault();
    const path = folder.trim();
    if (!path || running) return;
    setRunning(true);
    setError(null);
    setSummary(null);
    try {
      setSummary(await api.ingest([path]));
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setRunning(false);
      onIngested();
    }
  };

  return (
    <aside className="library" aria-label="Library">
      <h2>Library</h2>
      <form className="ingest-form" onSubmit={index}>
        <label htmlFor="folder-input">Folder to index</label>
        <input
          id="folder-input"
          data-testid="folder-input"
          type="text"
          value={folder}
          placeholder="/path/to/your/documents"
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => setFolder(e.target.value)}
        />
        <div className="button-row">
          <button type="button" onClick={browse} disabled={running} data-testid="browse-button">
            Browse…
          </button>
          <button type="submit" className="primary" disabled={running || !folder.trim()} data-testid="index-button">
            {running ? 'Indexing…' : 'Index'}
          </button>
        </div>
      </form>
      {(running || progress !== null) && <IngestProgress progress={progress} />}
      {error && <Banner message={error} />}
      {summary && <IngestSummaryView summary={summary} />}
      <h3>
        Documents <span className="muted">({documents.length})</span>
      </h3>
      {documentsError && <Banner message={documentsError} />}
      <DocumentList documents={documents} />
    </aside>
  );
}
