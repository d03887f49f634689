import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import type { CollectionInfo, FileStatus, IngestProgressEvent, IngestSummary } from '../types';
import { AddToLibrary } from './AddToLibrary';
import { CollectionCard, LOOSE_NAME } from './CollectionCard';
import { FileStatusList } from './FileStatusList';
import { IngestProgress } from './IngestProgress';
import { IngestSummaryView } from './IngestSummaryView';
import { Banner } from './StatusBar';

interface Props {
  /** The latest ingest:progress of any running ingest (the user's, the watch's or the app's); null when none. */
  progress: IngestProgressEvent | null;
  /** Changes whenever the library may have changed (an ingest ended elsewhere); the panel reloads. */
  version: number;
  /** Called after the user's own add, re-scan or remove finishes, so counts refresh. */
  onIngested: () => void;
  /** An error shown elsewhere already (the model load failure); not repeated here. */
  knownError?: string | null;
}

/** Collections, adding folders and files, per-file status, re-scan and remove, with ingest progress. */
export function LibraryPanel({ progress, version, onIngested, knownError = null }: Props) {
  const [collections, setCollections] = useState<CollectionInfo[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [files, setFiles] = useState<FileStatus[]>([]);
  const [busy, setBusy] = useState(false);
  const [summary, setSummary] = useState<IngestSummary | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);

  // Loads collections and the selected one's files; a newer load wins over an older, slower one.
  const load = useCallback(async (want: string | null) => {
    const mine = ++seq.current;
    try {
      const cols = await api.collections();
      if (mine !== seq.current) return;
      setCollections(cols);
      const name = want !== null && cols.some((c) => c.name === want) ? want : (cols[0]?.name ?? null);
      setSelected(name);
      const list = name === null ? [] : await api.collectionFiles(name);
      if (mine === seq.current) setFiles(list);
    } catch (err) {
      if (mine === seq.current) setError(errorMessage(err));
    }
  }, []);

  const selectedRef = useRef(selected);
  selectedRef.current = selected;
  useEffect(() => void load(selectedRef.current), [version, load]);

  // A collection being indexed for the first time is listed while it fills.
  const indexing = progress?.collection ?? '';
  const listedRef = useRef(collections);
  listedRef.current = collections;
  useEffect(() => {
    if (indexing && !listedRef.current?.some((c) => c.name === indexing)) void load(indexing);
  }, [indexing, load]);

  const run = async (work: () => Promise<IngestSummary | void>, select: string | null) => {
    setBusy(true);
    setError(null);
    setSummary(null);
    try {
      const res = await work();
      if (res) setSummary(res);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
      onIngested();
      await load(select);
    }
  };

  const current = collections?.find((c) => c.name === selected) ?? null;
  return (
    <aside className="library" aria-label="Library">
      <h2>Library</h2>
      <AddToLibrary
        busy={busy}
        onError={setError}
        onAdd={(name, paths) => run(() => api.addPaths(name, paths), name)}
      />
      {(busy || progress !== null) && <IngestProgress progress={progress} />}
      {error && error !== knownError && <Banner message={error} />}
      {summary && <IngestSummaryView summary={summary} onDismiss={() => setSummary(null)} />}
      <h3>
        Collections <span className="muted">({collections?.filter((c) => c.name !== '').length ?? 0})</span>
      </h3>
      {collections !== null && collections.length === 0 && (
        <p className="muted">No collections yet. Add a folder to start.</p>
      )}
      <ul className="collections" data-testid="collections">
        {(collections ?? []).map((c) => (
          <CollectionCard
            key={c.name}
            collection={c}
            selected={c.name === selected}
            busy={busy}
            onSelect={() => void load(c.name)}
            onRescan={() => void run(() => api.rescan(c.name), c.name)}
            onRemove={() => void run(() => api.removeCollection(c.name), null)}
          />
        ))}
      </ul>
      {current && (
        <>
          <h3>Files in {current.name || LOOSE_NAME}</h3>
          <FileStatusList
            key={current.name}
            files={files}
            busy={busy}
            onTreatAsDocument={(path, on) => void run(() => api.treatAsDocument(path, on), current.name)}
            onRetry={(path) => void run(() => api.retryFile(path), current.name)}
          />
        </>
      )}
    </aside>
  );
}
