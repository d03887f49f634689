import { memo } from 'react';
import { extractMarkers } from '../citations';
import { formatDuration } from '../format';
import type { Turn } from '../chatState';
import { AnswerBody } from './AnswerBody';

/** One question with its (possibly still streaming) answer. */
export const TurnView = memo(function TurnView({ turn }: { turn: Turn }) {
  const streaming = turn.phase === 'asking' || turn.phase === 'streaming' || turn.phase === 'stopping';
  return (
    <article className="turn" data-testid="turn" data-phase={turn.phase} aria-busy={streaming}>
      <p className="question">{turn.question}</p>
      <div className="answer">
        {turn.phase === 'asking' && turn.text === '' && <p className="muted">Searching your documents…</p>}
        <AnswerBody
          text={turn.text}
          citations={turn.citations}
          idPrefix={`turn-${turn.key}`}
          streaming={streaming}
        />
        {turn.error && (
          <p className="answer-error" role="alert" data-testid="answer-error">
            {turn.error}
          </p>
        )}
        <AnswerMeta turn={turn} />
      </div>
    </article>
  );
});

function AnswerMeta({ turn }: { turn: Turn }) {
  const a = turn.answer;
  if (turn.phase === 'stopping') return <p className="answer-meta muted">Stopping…</p>;
  if (!a) return null;
  const cited = new Set(extractMarkers(a.answer));
  const sources = turn.citations.filter((c) => cited.has(c.n));
  return (
    <div className="answer-meta" data-testid="answer-meta">
      {a.grounded ? (
        <span className="badge grounded">Grounded</span>
      ) : (
        <span className="badge refused">Not answered</span>
      )}
      {a.stopped && <span className="badge">Stopped</span>}
      {!a.grounded && a.refusal_reason && <span className="refusal">{a.refusal_reason}</span>}
      <span className="muted">
        {a.model} · {formatDuration(a.duration_ms)}
      </span>
      {sources.length > 0 && (
        <ol className="sources">
          {sources.map((c) => (
            <li key={c.n} value={c.n} title={c.path}>
              {c.title || c.path} <span className="muted">§ {c.section_id}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
