import { useCallback, useEffect, useRef, useState } from 'react';
import { api, errorMessage, onEvent } from './api';
import { ChatPanel } from './components/ChatPanel';
import { EvaluateLauncher } from './components/EvaluatePanel';
import { LibraryPanel } from './components/LibraryPanel';
import { Onboarding } from './components/Onboarding';
import { SettingsPanel } from './components/SettingsPanel';
import { SourceViewer } from './components/SourceViewer';
import { StatusBar } from './components/StatusBar';
import { applyTheme, loadTheme } from './theme';
import type { DocumentInfo, IngestProgressEvent, Status } from './types';
import { OpenSourceContext, type SourceRequest } from './viewer';

/** How often Status is polled while the embedding model loads. */
export const LOADING_POLL_MS = 1000;

export function App() {
  const [status, setStatus] = useState<Status | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [documents, setDocuments] = useState<DocumentInfo[]>([]);
  const [ingestProgress, setIngestProgress] = useState<IngestProgressEvent | null>(null);
  const [viewer, setViewer] = useState<{ citations: SourceRequest['citations']; index: number; spans?: SourceRequest['spans'] } | null>(
    null,
  );
  const [settingsOpen, setSettingsOpen] = useState(false);
  const [libraryVersion, setLibraryVersion] = useState(0);

  // The theme is saved in settings.json; the local copy only avoids a flash at start.
  useEffect(() => {
    applyTheme(loadTheme());
    api.settings().then(
      (s) => {
        if (s?.theme) applyTheme(s.theme);
      },
      () => {
        // Settings unreadable: the local copy stays; the Settings screen says why.
      },
    );
  }, []);

  const openSource = useCallback((request: SourceRequest) => {
    const index = request.citations.findIndex((c) => c.n === request.n);
    if (index >= 0) setViewer({ citations: request.citations, index, spans: request.spans });
  }, []);
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
    } catch {
      // The library panel and the header report why the index cannot be read.
    }
  }, []);

  const refresh = useCallback(() => {
    void loadStatus();
    void loadDocuments();
  }, [loadStatus, loadDocuments]);

  /** Refreshes everything after an ingest someone else (the watch, the app) finished. */
  const refreshAll = useCallback(() => {
    refresh();
    setLibraryVersion((v) => v + 1);
  }, [refresh]);

  useEffect(refresh, [refresh]);

  // The Go side may index by itself (e.g. a sample library at start), so
  // progress is followed here for the whole session, not only during the
  // user's own Ingest call.
  // Events can arrive out of order (the runtime delivers them concurrently),
  // so a stale "3 of 5" may land after the run finished; progress no further
  // than a just-finished run is ignored for a moment.
  const finished = useRef({ at: 0, filesDone: 0 });
  const STALE_MS = 1500;
  useEffect(
    () =>
      onEvent('ingest:progress', (progress) => {
        const ended =
          progress.done || (progress.files_total > 0 && progress.files_done >= progress.files_total);
        if (ended) {
          finished.current = { at: Date.now(), filesDone: progress.files_done };
          setIngestProgress(null);
          refreshAll();
          return;
        }
        const f = finished.current;
        if (Date.now() - f.at < STALE_MS && progress.files_done <= f.filesDone) return;
        setIngestProgress(progress);
      }),
    [refreshAll],
  );

  const onIngested = useCallback(() => {
    // A failed run sends no final event; do not leave its bar behind.
    finished.current = { at: Date.now(), filesDone: Number.POSITIVE_INFINITY };
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
    if (wasLoading.current && !loading) {
      void loadDocuments();
      setLibraryVersion((v) => v + 1);
    }
    wasLoading.current = loading;
  }, [loading, loadDocuments]);

  return (
    <OpenSourceContext.Provider value={openSource}>
    <div className="app">
      <StatusBar
        status={status}
        error={statusError}
        onModelDownloaded={() => void loadStatus()}
        onOpenSettings={() => setSettingsOpen(true)}
      />
      <div className="workspace">
        <LibraryPanel
          progress={ingestProgress}
          version={libraryVersion}
          onIngested={onIngested}
          // The header already shows a model load failure; do not repeat it here.
          knownError={status?.embed_error || null}
        />
        <ChatPanel intro={<Onboarding status={status} documents={documents.length} />} tools={<EvaluateLauncher />} />
      </div>
      {viewer && (
        <SourceViewer
          citations={viewer.citations}
          spans={viewer.spans}
          index={viewer.index}
          onIndex={(index) => setViewer((v) => (v ? { ...v, index } : v))}
          onClose={() => setViewer(null)}
        />
      )}
      {settingsOpen && <SettingsPanel onClose={() => setSettingsOpen(false)} onSaved={() => void loadStatus()} />}
    </div>
    </OpenSourceContext.Provider>
  );
}
