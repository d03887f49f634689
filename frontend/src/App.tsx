import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage, onEvent } from './api';
import { ChatPanel } from './components/ChatPanel';
import { LibraryPanel } from './components/LibraryPanel';
import { StatusBar } from './components/StatusBar';
import type { DocumentInfo, IngestProgressEvent, Status } from './types';

/** How often Status is polled while the embedding model loads. */
export const LOADING_POLL_MS = 1000;

export function App() {
  const [status, setStatus] = useState<Status | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [documents, setDocuments] = useState<DocumentInfo[]>([]);
  const [documentsError, setDocumentsError] = useState<string | null>(null);
  const [ingestProgress, setIngestProgress] = useState<IngestProgressEvent | null>(null);
  // Refreshes can overlap (a finished ingest, a poll, a download); only the
  // newest request's answer is shown so an older, slower one cannot win.
  const statusSeq = useRef(0);
  const documentsSeq = useRef(0);

  /** Fetches Status; resolves to it, or to null when it failed or was superseded. */
  const loadStatus = useCallback(async (): Promise<Status | null> => {
    const seq = ++statusSeq.current;
    try {
      const s = await api.status();
      if (seq !== statusSeq.current) return null;
      setStatus(s);
      setStatusError(null);
      return s;
    } catch (err) {
      if (seq === statusSeq.current) setStatusError(errorMessage(err));
      return null;
    }
  }, []);

  const loadDocuments = useCallback(async () => {
    const seq = ++documentsSeq.current;
    try {
      const d = await api.documents();
      if (seq !== documentsSeq.current) return;
      setDocuments(d);
      setDocumentsError(null);
    } catch (err) {
      if (seq === documentsSeq.current) setDocumentsError(errorMessage(err));
    }
  }, []);

  const refresh = useCallback(() => {
    void loadStatus();
    void loadDocuments();
  }, [loadStatus, loadDocuments]);

  useEffect(refresh, [refresh]);

  // The Go side may index by itself (e.g. a sample library at start), so
  // progress is followed here for the whole session, not only during the
  // user's own Ingest call.
  useEffect(
    () =>
      onEvent('ingest:progress', (progress) => {
        if (progress.done) {
          setIngestProgress(null);
          refresh();
        } else {
          setIngestProgress(progress);
        }
      }),
    [refresh],
  );

  const onIngested = useCallback(() => {
    // A failed run sends no final event; do not leave its bar behind.
    setIngestProgress(null);
    refresh();
  }, [refresh]);

  // While the model loads, poll Status until it is done, then reload the
  // documents (they cannot be listed before the index is open).
  const loading = status?.loading === true;
  useEffect(() => {
    if (!loading) return;
    let cancelled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const schedule = () => {
      timer = setTimeout(() => {
        void loadStatus().then((s) => {
          if (!cancelled && (s === null || s.loading)) schedule();
        });
      }, LOADING_POLL_MS);
    };
    schedule();
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [loading, loadStatus]);

  const wasLoading = useRef(false);
  useEffect(() => {
    if (wasLoading.current && !loading) void loadDocuments();
    wasLoading.current = loading;
  }, [loading, loadDocuments]);

  return (
    <div className="app">
      <StatusBar status={status} error={statusError} onModelDownloaded={() => void loadStatus()} />
      <div className="workspace">
        <LibraryPanel
          documents={documents}
          documentsError={documentsError}
          progress={ingestProgress}
          onIngested={onIngested}
        />
        <ChatPanel />
      </div>
    </div>
  );
}
