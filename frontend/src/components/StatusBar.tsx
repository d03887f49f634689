import type { ReactNode } from 'react';
import type { Status } from '../types';
import { ModelDownload } from './ModelDownload';

interface Props {
  status: Status | null;
  error: string | null;
  /** Called after the embedding model was downloaded from the banner. */
  onModelDownloaded: () => void;
  onOpenSettings?: () => void;
}

/** App title, index counts and model readiness; backend problems show as banners. */
export function StatusBar({ status, error, onModelDownloaded, onOpenSettings }: Props) {
  return (
    <header className="status-bar">
      <div className="status-line">
        <h1 className="brand">Footnote</h1>
        {status && (
          <dl className="status-facts" data-testid="status">
            <Fact label="Documents" value={String(status.documents)} />
            <Fact label="Chunks" value={String(status.chunks)} />
            <Fact label="Embedding" value={status.lexical_only ? 'none · search by words' : status.embed_model || '—'} />
            <Fact
              label="LLM"
              value={status.llm_model ? `${status.llm_model}${status.ollama_host ? ` @ ${status.ollama_host}` : ''}` : '—'}
            />
          </dl>
        )}
        {status?.remote && (
          <span
            className="remote-badge"
            data-testid="remote-badge"
            title="The model server is not on this computer: your questions and the cited passages are sent to it."
          >
            remote model server
          </span>
        )}
        {status?.loading && (
          <span className="status-loading" role="status" data-testid="status-loading">
            Loading the embedding model…
          </span>
        )}
        <span className="kbd-hint" aria-hidden="true">
          Ctrl+K ask · Esc stop · ←/→ citations
        </span>
        {onOpenSettings && (
          <button type="button" className="small" onClick={onOpenSettings} data-testid="settings-button">
            Settings
          </button>
        )}
      </div>
      {error && <Banner message={error} />}
      {status?.embed_error && (
        <Banner message={status.embed_error} notice={status.lexical_only}>
          <ModelDownload onDownloaded={onModelDownloaded} />
        </Banner>
      )}
      {status?.ollama_error && <Banner message={status.ollama_error} />}
    </header>
  );
}

function Fact({ label, value }: { label: string; value: string }) {
  return (
    <div className="fact">
      <dt>{label}</dt>
      <dd title={value}>{value}</dd>
    </div>
  );
}

/**
 * A problem in one sentence; children (e.g. a fix button) sit next to it,
 * outside the alert text. A notice (something works in a reduced way, such
 * as search by words without the embedding model) is a status, not an alert.
 */
export function Banner({ message, notice, children }: { message: string; notice?: boolean; children?: ReactNode }) {
  const role = notice ? 'status' : 'alert';
  const kind = notice ? 'banner banner-notice' : 'banner';
  if (!children) {
    return (
      <div className={kind} role={role}>
        {message}
      </div>
    );
  }
  return (
    <div className={`${kind} banner-with-action`} data-testid={notice ? 'lexical-only-notice' : undefined}>
      <span role={role}>{message}</span>
      {children}
    </div>
  );
}
