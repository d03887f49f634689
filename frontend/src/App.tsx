import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from './api';
import { ChatPanel } from './components/ChatPanel';
import { LibraryPanel } from './components/LibraryPanel';
import { StatusBar } from './components/StatusBar';
import type { DocumentInfo, Status } from './types';

export function App() {
  const [status, setStatus] = useState<Status | null>(null);
  const [statusError, setStatusError] = useState<string | null>(null);
  const [documents, setDocuments] = useState<DocumentInfo[]>([]);
  const [documentsError, setDocumentsError] = useState<string | null>(null);

  const refresh = useCallback(() => {
    api.status().then(
      (s) => {
        setStatus(s);
        setStatusError(null);
      },
      (err: unknown) => setStatusError(errorMessage(err)),
    );
    api.documents().then(
      (d) => {
        setDocuments(d);
        setDocumentsError(null);
      },
      (err: unknown) => setDocumentsError(errorMessage(err)),
    );
  }, []);

  useEffect(refresh, [refresh]);

  return (
    <div className="app">
      <StatusBar status={status} error={statusError} />
      <div className="workspace">
        <LibraryPanel documents={documents} documentsError={documentsError} onIngested={refresh} />
        <ChatPanel />
      </div>
    </div>
  );
}
