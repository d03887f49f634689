import type { Status } from '../types';

interface Props {
  status: Status | null;
  error: string | null;
}

/** App title, index counts and model readiness; backend problems show as banners. */
export function StatusBar({ status, error }: Props) {
  return (
    <header className="status-bar">
      <div className="status-line">
        <h1 className="brand">Footnote</h1>
        {status && (
          <dl className="status-facts" data-testid="status">
            <Fact label="Documents" value={String(status.documents)} />
            <Fact label="Chunks" value={String(status.chunks)} />
            <Fact label="Embedding" value={status.embed_model || '—'} />
            <Fact
              label="LLM"
              value={status.llm_model ? `${status.llm_model}${status.ollama_host ? ` @ ${status.ollama_host}` : ''}` : '—'}
            />
          </dl>
        )}
        <span className="kbd-hint" aria-hidden="true">
          Ctrl+K ask · Esc stop
        </span>
      </div>
      {error && <Banner message={error} />}
      {status?.embed_error && <Banner message={status.embed_error} />}
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

export function Banner({ message }: { message: string }) {
  return (
    <div className="banner" role="alert">
      {message}
    </div>
  );
}
