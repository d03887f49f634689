import { useState } from 'react';
import type { Status } from '../types';

interface Props {
  status: Status | null;
  documents: number;
}

const KEY = 'footnote.onboarding.dismissed';

type StepState = 'ok' | 'todo' | 'wait';

/**
 * First-run checklist: embedding model, Ollama and a first folder, each with
 * exactly what to do. Dismissible; it comes back while something is broken.
 */
export function Onboarding({ status, documents }: Props) {
  const [dismissed, setDismissed] = useState(() => {
    try {
      return localStorage.getItem(KEY) === '1';
    } catch {
      return false;
    }
  });
  if (!status) return null;
  if (status.loading) {
    return <p className="empty muted">Loading the embedding model…</p>;
  }
  const embed: StepState = status.loading ? 'wait' : status.embed_error ? 'todo' : 'ok';
  const ollama: StepState = status.ollama_error ? 'todo' : 'ok';
  const library: StepState = documents > 0 ? 'ok' : 'todo';
  const broken = embed === 'todo' || ollama === 'todo';
  if ((dismissed && !broken) || (!broken && library === 'ok')) {
    return (
      <p className="empty muted">
        Ask a question about your documents. Every claim in the answer links to the passage it came from; click a
        citation to read it in place.
      </p>
    );
  }
  const model = status.llm_model || 'llama3.2:3b';

  return (
    <section className="onboarding" aria-label="Getting started" data-testid="onboarding">
      <header className="onboarding-head">
        <h2>Getting started</h2>
        {!broken && (
          <button
            type="button"
            className="small"
            onClick={() => {
              setDismissed(true);
              try {
                localStorage.setItem(KEY, '1');
              } catch {
                // Not remembered; it is only hidden for this session.
              }
            }}
            data-testid="onboarding-dismiss"
          >
            Dismiss
          </button>
        )}
      </header>
      <ol className="steps">
        <Step state={embed} title="Embedding model" testId="step-embed">
          {embed === 'ok' && <>Loaded: {status.embed_model}.</>}
          {embed === 'wait' && <>Loading the embedding model…</>}
          {embed === 'todo' && status.lexical_only && (
            <p data-testid="step-embed-lexical">
              Not installed yet: your documents are indexed and searched by their words. Press “Download model” above
              to search by meaning too; the index gets it without reading your files again.
            </p>
          )}
          {embed === 'todo' && !status.lexical_only && (
            <p>
              Not loaded (the banner above says why). Press “Download model” there to fetch it once, or point Settings at
              a folder that holds one.
            </p>
          )}
        </Step>
        <Step state={ollama} title="Ollama" testId="step-ollama">
          {ollama === 'ok' ? (
            <>
              Reachable at {status.ollama_host}; answering with {model}.
            </>
          ) : (
            <>
              <p>Not ready at {status.ollama_host || 'its default address'} (the banner above says why).</p>
              <p>
                Install Ollama from ollama.com, start it with <code>ollama serve</code>, then run{' '}
                <code>ollama pull {model}</code>. Another host or model can be set in Settings.
              </p>
            </>
          )}
        </Step>
        <Step state={library} title="Your documents" testId="step-library">
          {library === 'ok' ? (
            <>{documents} documents indexed.</>
          ) : (
            <>Choose or type a folder on the left and press Add. Markdown, text, HTML, PDF (scanned pages by OCR), Word, OpenDocument, RTF, EPUB, PowerPoint,
            Excel and CSV files are read.</>
          )}
        </Step>
      </ol>
    </section>
  );
}

function Step({
  state,
  title,
  testId,
  children,
}: {
  state: StepState;
  title: string;
  testId: string;
  children: React.ReactNode;
}) {
  const mark = state === 'ok' ? '✓' : state === 'wait' ? '…' : '!';
  return (
    <li className={`step step-${state}`} data-testid={testId} data-state={state}>
      <span className="step-mark" aria-hidden="true">
        {mark}
      </span>
      <div>
        <strong>{title}</strong>
        <div className="step-body">{children}</div>
      </div>
    </li>
  );
}
