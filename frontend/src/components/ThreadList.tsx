import { useCallback, useEffect, useState } from 'react';
import { api, errorMessage } from '../api';
import type { Thread } from '../types';

interface Props {
  activeId: string | null;
  /** A thread was picked (or created): show it and ask follow-ups in it. */
  onOpen: (thread: Thread) => void;
  /** The active thread was deleted. */
  onDeleted: (id: string) => void;
  onClose: () => void;
}

/** Conversation threads, most recent first: new, switch, rename, delete. */
export function ThreadList({ activeId, onOpen, onDeleted, onClose }: Props) {
  const [threads, setThreads] = useState<Thread[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<{ id: string; title: string } | null>(null);

  const reload = useCallback(() => {
    api.threads().then(
      (list) => {
        setThreads(list);
        setError(null);
      },
      (err: unknown) => setError(errorMessage(err)),
    );
  }, []);
  useEffect(reload, [reload]);

  const act = (work: () => Promise<unknown>) =>
    work().then(reload, (err: unknown) => setError(errorMessage(err)));

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className="dialog history" role="dialog" aria-modal="true" aria-label="Threads" data-testid="thread-list">
        <div className="dialog-head">
          <h2>Threads</h2>
          <button
            type="button"
            className="small"
            data-testid="thread-new"
            onClick={() => void api.newThread('').then(onOpen, (err: unknown) => setError(errorMessage(err)))}
          >
            New thread
          </button>
          <button type="button" className="small" onClick={onClose}>
            Close
          </button>
        </div>
        {error && (
          <p className="answer-error" role="alert">
            {error}
          </p>
        )}
        {threads && threads.length === 0 && <p className="muted">No threads yet. Questions asked in a thread appear here.</p>}
        <ul>
          {threads?.map((t) => (
            <li key={t.id} data-testid="thread-item" aria-current={t.id === activeId}>
              {renaming?.id === t.id ? (
                <form
                  onSubmit={(e) => {
                    e.preventDefault();
                    void act(() => api.renameThread(t.id, renaming.title));
                    setRenaming(null);
                  }}
                >
                  <input
                    aria-label="Thread title"
                    data-testid="thread-title-input"
                    value={renaming.title}
                    onChange={(e) => setRenaming({ id: t.id, title: e.target.value })}
                  />
                  <button type="submit" className="small">
                    Save
                  </button>
                </form>
              ) : (
                <button type="button" className="link" data-testid="thread-open" onClick={() => onOpen(t)}>
                  {t.title || 'Untitled thread'} <span className="muted">({t.turns} questions)</span>
                </button>
              )}
              <button type="button" className="small" data-testid="thread-rename" onClick={() => setRenaming({ id: t.id, title: t.title })}>
                Rename
              </button>
              <button
                type="button"
                className="small"
                data-testid="thread-delete"
                onClick={() =>
                  void act(async () => {
                    await api.deleteThread(t.id);
                    onDeleted(t.id);
                  })
                }
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
