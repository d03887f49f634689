import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, useState, type ReactNode } from 'react';
import { api, errorMessage, onEvent } from '../api';
import { chatReducer, currentTurn, initialChatState } from '../chatState';
import { Composer } from './Composer';
import { downloadText, exportFileName, threadToMarkdown } from '../export';
import type { Thread } from '../types';
import { HistoryPanel } from './HistoryPanel';
import { ThreadList } from './ThreadList';
import { TurnView } from './TurnView';

/**
 * Question/answer history with streaming answers. `intro` shows while the
 * chat is empty; `tools` sit in the toolbar next to History.
 */
export function ChatPanel({ intro, tools }: { intro?: ReactNode; tools?: ReactNode } = {}) {
  const [state, dispatch] = useReducer(chatReducer, initialChatState);
  const [historyOpen, setHistoryOpen] = useState(false);
  const [threadsOpen, setThreadsOpen] = useState(false);
  // While a thread is open, questions are asked in it as follow-ups.
  const [thread, setThread] = useState<Thread | null>(null);
  const input = useRef<HTMLTextAreaElement>(null);
  const log = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const open = currentTurn(state);

  useEffect(() => {
    const offs = [
      onEvent('answer:start', (payload) => dispatch({ type: 'answer:start', payload })),
      onEvent('answer:token', (payload) => dispatch({ type: 'answer:token', payload })),
      onEvent('answer:done', (payload) => dispatch({ type: 'answer:done', payload })),
      onEvent('answer:error', (payload) => dispatch({ type: 'answer:error', payload })),
    ];
    return () => offs.forEach((off) => off());
  }, []);

  const threadId = thread?.id ?? null;
  const ask = useCallback(
    async (question: string, fresh = false, standalone = '') => {
      dispatch({ type: 'ask', question });
      stickToBottom.current = true;
      try {
        const requestId =
          threadId !== null ? await api.askInThread(threadId, question, standalone) : await api.ask(question, fresh);
        dispatch({ type: 'asked', requestId });
        // A new thread is named after its first question (as the thread list names it).
        if (threadId !== null) setThread((t) => (t && t.id === threadId && !t.title ? { ...t, title: question } : t));
      } catch (err) {
        dispatch({ type: 'askFailed', error: errorMessage(err) });
      }
    },
    [threadId],
  );

  const openThread = useCallback(async (t: Thread) => {
    setThreadsOpen(false);
    setThread(t);
    dispatch({ type: 'clear' });
    try {
      for (const ta of await api.threadAnswers(t.id)) dispatch({ type: 'show', answer: ta.answer });
    } catch (err) {
      dispatch({ type: 'askFailed', error: errorMessage(err) });
    }
  }, []);

  const exportThread = useCallback(async () => {
    if (!thread) return;
    const turns = await api.threadAnswers(thread.id);
    const title = thread.title || turns[0]?.turn.question || 'conversation';
    downloadText(exportFileName(title), threadToMarkdown(title, turns.map((t) => ({ seq: t.turn.seq, answer: t.answer }))));
  }, [thread]);

  const requestId = open?.requestId ?? null;
  const stop = useCallback(async () => {
    if (!requestId) return;
    dispatch({ type: 'stopping' });
    try {
      await api.stop(requestId);
    } catch (err) {
      dispatch({ type: 'stopFailed', error: errorMessage(err) });
    }
  }, [requestId]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        input.current?.focus();
      } else if (e.key === 'Escape' && requestId) {
        void stop();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [requestId, stop]);

  // Follow the streaming answer only while the reader is at the bottom.
  useLayoutEffect(() => {
    const el = log.current;
    if (el && stickToBottom.current) el.scrollTop = el.scrollHeight;
  }, [state.turns]);

  return (
    <main className="chat" aria-label="Chat">
      <div className="chat-toolbar">
        {tools}
        {thread && (
          <span className="muted" data-testid="active-thread">
            Thread: {thread.title || 'new'}{' '}
            <button type="button" className="small" data-testid="thread-export" onClick={() => void exportThread()}>
              Export
            </button>
          </span>
        )}
        <button type="button" className="small" onClick={() => setThreadsOpen(true)} data-testid="threads-button">
          Threads
        </button>
        <button type="button" className="small" onClick={() => setHistoryOpen(true)} data-testid="history-button">
          History
        </button>
      </div>
      <div
        className="chat-log"
        ref={log}
        aria-live="polite"
        onScroll={(e) => {
          const el = e.currentTarget;
          stickToBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {state.turns.length === 0 &&
          (intro ?? (
            <p className="empty muted">
              Index a folder on the left, then ask a question. Every claim in the answer links to the passage it came
              from.
            </p>
          ))}
        {state.turns.map((turn) => (
          <TurnView
            key={turn.key}
            turn={turn}
            onAskFresh={(q) => void ask(q, true)}
            onAskEdited={threadId !== null ? (q, s) => void ask(q, false, s) : undefined}
          />
        ))}
      </div>
      <Composer
        busy={open !== undefined}
        canStop={requestId !== null && open?.phase !== 'stopping'}
        onAsk={(q) => void ask(q)}
        onStop={() => void stop()}
        inputRef={input}
      />
      {threadsOpen && (
        <ThreadList
          activeId={threadId}
          onOpen={(t) => void openThread(t)}
          onDeleted={(id) => {
            if (id !== threadId) return;
            setThread(null);
            dispatch({ type: 'clear' });
          }}
          onClose={() => setThreadsOpen(false)}
        />
      )}
      {historyOpen && (
        <HistoryPanel
          onClose={() => setHistoryOpen(false)}
          onPick={(answer) => {
            stickToBottom.current = true;
            dispatch({ type: 'show', answer });
            setHistoryOpen(false);
          }}
        />
      )}
    </main>
  );
}
