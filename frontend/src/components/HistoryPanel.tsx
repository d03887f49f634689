import { useEffect, useState } from 'react';
import { api, errorMessage } from '../api';
import { formatDuration } from '../format';
import type { Answer } from '../types';

interface Props {
  onPick: (answer: Answer) => void;
  onClose: () => void;
}

const SEARCH_DELAY_MS = 200;

/** Past answers, newest first, searchable by question and answer text. */
export function HistoryPanel({ onPick, onClose }: Props) {
  const [query, setQuery] = useState('');
  const [items, setItems] = useState<Answer[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(() => {
      api.history(query, 100).then(
        (list) => {
          if (cancelled) return;
          setItems(list);
          setError(null);
        },
        (err: unknown) => !cancelled && setError(errorMessage(err)),
      );
    }, query ? SEARCH_DELAY_MS : 0);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [query]);

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="dialog history"
        role="dialog"
        aria-modal="true"
        aria-label="Answer history"
        data-testid="history-panel"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation();
            onClose();
          }
        }}
      >
        <header className="dialog-head">
          <h2>History</h2>
          <button type="button" onClick={onClose} aria-label="Close history">
            ✕
          </button>
        </header>
        <input
          type="search"
          className="history-search"
          placeholder="Search questions and answers"
          value={query}
          autoFocus
          onChange={(e) => setQuery(e.target.value)}
          data-testid="history-search"
          aria-label="Search history"
        />
        {error && (
          <p className="answer-error" role="alert">
            {error}
          </p>
        )}
        {items && items.length === 0 && <p className="muted">{query ? 'No answer matches.' : 'No answers yet.'}</p>}
        <ul className="history-list" data-testid="history-list">
          {(items ?? []).map((a) => (
            <li key={a.id || a.request_id}>
              <button type="button" className="history-item" onClick={() => onPick(a)}>
                <span className="history-q">{a.question}</span>
                <span className="muted history-facts">
                  {a.grounded ? 'grounded' : a.stopped ? 'stopped' : 'not answered'} · {a.model} ·{' '}
                  {formatDuration(a.duration_ms)}
                  {a.created_at ? ` · ${new Date(a.created_at).toLocaleString()}` : ''}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
