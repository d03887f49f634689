import { ClaimCheck } from './ClaimCheck';
import { memo, useState } from 'react';
import { excerpt, extractMarkers } from '../citations';
import { answerToMarkdown, downloadText, exportFileName } from '../export';
import { formatDuration, formatScore } from '../format';
import { supportSpans } from '../claims';
import { useOpenSource, type SourceRequest } from '../viewer';
import type { Turn } from '../chatState';
import type { Answer, CacheInfo, ClaimResult, GateRefusal } from '../types';
import { CacheMatchList } from './CacheMatchList';
import { CacheProvenance } from './CacheProvenance';
import { AnswerBody, claimElementId } from './AnswerBody';
import { ProvenanceView } from './ProvenanceView';

/** One question with its (possibly still streaming) answer. */
export const TurnView = memo(function TurnView({
  turn,
  onAskFresh,
  onAskEdited,
}: {
  turn: Turn;
  /** Asks the question again, bypassing the answer cache. */
  onAskFresh?: (question: string) => void;
  /** Asks a follow-up again, searching for the user's edit of its standalone question. */
  onAskEdited?: (question: string, standalone: string) => void;
}) {
  const streaming = turn.phase === 'asking' || turn.phase === 'streaming' || turn.phase === 'stopping';
  const idPrefix = `turn-${turn.key}`;
  // Claim ranges index the stored answer text; use them only on exactly that text.
  const claims = turn.answer && turn.answer.answer === turn.text ? turn.answer.claims : null;
  return (
    <article className="turn" data-testid="turn" data-phase={turn.phase} aria-busy={streaming}>
      <p className="question">{turn.question}</p>
      {turn.answer?.followup && (
        <SearchedFor question={turn.question} standalone={turn.answer.followup.standalone} fallback={turn.answer.followup.rewrite_source === 'fallback'} onAskEdited={onAskEdited} />
      )}
      <div className="answer">
        {turn.phase === 'asking' && turn.text === '' && <p className="muted">Searching your documents…</p>}
        <AnswerBody
          text={turn.text}
          citations={turn.citations}
          idPrefix={idPrefix}
          streaming={streaming}
          claims={claims}
        />
        {turn.error && (
          <p className="answer-error" role="alert" data-testid="answer-error">
            {turn.error}
          </p>
        )}
        <AnswerMeta turn={turn} onAskFresh={onAskFresh} idPrefix={idPrefix} marked={Boolean(claims)} />
      </div>
    </article>
  );
});

/** A source request with each citation's best supporting span, when the answer's claims were verified. */
function withSpans(request: SourceRequest, claims: ClaimResult[] | null | undefined): SourceRequest {
  const spans = supportSpans(claims, -1, request.citations.map((c) => c.n));
  return spans.size > 0 ? { ...request, spans } : request;
}

/** Human-readable refusal reasons for the codes the pipeline uses. */
export function describeRefusal(reason: string): string {
  switch (reason) {
    case 'no_chunks':
      return 'Nothing in your documents matches this question.';
    case 'score_gate':
      return 'The closest passages hold too little of the question, so no answer was generated.';
    case 'unanswerable':
      return "The closest passages lack the question's distinctive words, so no answer was generated.";
    case 'no_citations':
      return 'The model answered without citing your documents, so the answer was withheld.';
    case 'llm_self_judge':
      return 'The model cited passages it was not given, so the answer was withheld.';
    case 'llm_error':
      return 'Generation failed before the answer was complete.';
    case 'length_limit':
      return 'The answer reached its length limit and was cut off, so it is incomplete.';
    case 'context_window':
      return "The question and its passages fill the model's context window, so no answer was generated.";
    case 'no_answer_model':
      return 'Each line is quoted from the passage it cites; no model wrote it.';
    case 'unsupported_claim':
      return 'A claim is not supported by the passage it cites, so the answer is not shown as grounded.';
    case 'validation_failed':
      return 'The citations failed provenance validation, so the answer is not shown as grounded.';
    default:
      return reason;
  }
}

/** The signals read as a share; the others (passages, negation, values) are said in words alone, as rag.GateRefusal.Sentence does. */
const gateSignals: Record<string, string> = { word_match: 'word match', rare_words: 'share of distinctive words' };

/** What a gate read when it refused, in words: why, then a share's value and the least it needed. */
export function describeGate(by: GateRefusal): string {
  const why = by.why.charAt(0).toUpperCase() + by.why.slice(1);
  const name = gateSignals[by.signal];
  return name ? `${why} (${name} ${formatScore(by.value)}, needed ${formatScore(by.threshold)}).` : `${why}.`;
}

function AnswerMeta({
  turn,
  onAskFresh,
  idPrefix,
  marked,
}: {
  turn: Turn;
  onAskFresh?: (question: string) => void;
  idPrefix: string;
  /** The failing claims are marked in the answer text, so the footer can jump to them. */
  marked: boolean;
}) {
  const a = turn.answer;
  const openSource = useOpenSource();
  const [copied, setCopied] = useState<string | null>(null);
  if (turn.phase === 'stopping') return <p className="answer-meta muted">Stopping…</p>;
  if (!a) return null;
  const cited = new Set(extractMarkers(a.answer));
  const sources = turn.citations.filter((c) => cited.has(c.n));
  const nearest = a.nearest ?? [];
  const usage = a.usage;
  const markdown = () => answerToMarkdown(a, turn.citations);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(markdown());
      setCopied('Copied');
    } catch {
      setCopied('Copy failed; use Export instead');
    }
  };
  return (
    <div className="answer-meta" data-testid="answer-meta">
      {a.stopped ? (
        <span className="badge">Stopped</span>
      ) : a.grounded ? (
        <span className="badge grounded">Grounded</span>
      ) : (
        <span className="badge refused" data-testid="refusal-badge">
          {a.refusal_reason === 'no_answer_model' ? 'Passages only' : 'Not answered'}
        </span>
      )}
      {a.cache?.hit && <CacheBadge cache={a.cache} answer={a} onAskFresh={onAskFresh && (() => onAskFresh(a.question))} />}
      {!a.grounded && !a.stopped && a.refusal_reason && (
        <span className="refusal" data-testid="refusal-reason" title={a.refusal_reason}>
          {describeRefusal(a.refusal_reason)}
          {a.retrieval?.refused_by && a.retrieval.refused_by.signal !== 'passages'
            ? ` ${describeGate(a.retrieval.refused_by)}`
            : a.refusal_reason === 'score_gate' && a.retrieval // answered before gates recorded their signal
              ? ` (best ${formatScore(a.retrieval.top_score)}, gate ${formatScore(a.retrieval.gate)})`
              : ''}
          {a.refusal_reason === 'validation_failed' ? firstErrorCode(a) : ''}
        </span>
      )}
      <span className="muted answer-footer" data-testid="answer-footer">
        {[
          a.model,
          formatDuration(a.duration_ms),
          usage && usage.prompt_tokens + usage.answer_tokens > 0
            ? `${usage.prompt_tokens} prompt + ${usage.answer_tokens} answer tokens`
            : '',
          a.created_at ? new Date(a.created_at).toLocaleString() : '',
        ]
          .filter(Boolean)
          .join(' · ')}
      </span>
      <span className="answer-actions">
        {copied && <span className="muted" role="status">{copied}</span>}
        <button type="button" className="small" onClick={() => void copy()} data-testid="copy-answer">
          Copy
        </button>
        <button
          type="button"
          className="small"
          onClick={() => downloadText(exportFileName(a.question), markdown())}
          data-testid="export-answer"
        >
          Export .md
        </button>
      </span>
      <ClaimCheck
        verification={a.verification}
        onJump={
          marked
            ? (claim) => {
                const el = document.getElementById(claimElementId(idPrefix, claim));
                el?.scrollIntoView?.({ block: 'center' });
                el?.focus();
              }
            : undefined
        }
      />
      {a.provenance && <ProvenanceView provenance={a.provenance} lambda={a.lambda_state} lambdaBasis={a.lambda_basis} />}
      <ValidationIssues answer={a} />
      {sources.length > 0 && (
        <ol className="sources">
          {sources.map((c) => (
            <li key={c.n} value={c.n} title={c.path}>
              <button
                type="button"
                className="link"
                onClick={() => openSource?.(withSpans({ citations: sources, n: c.n }, a.claims))}
              >
                {c.title || c.path}
              </button>{' '}
              <span className="muted">
                § {c.section_id}
                {c.page ? `, page ${c.page}` : ''}
              </span>
            </li>
          ))}
        </ol>
      )}
      {!a.grounded && nearest.length > 0 && (
        <div className="nearest" data-testid="nearest">
          <span className="muted">Closest passages found:</span>
          <ol>
            {nearest.map((c) => (
              <li key={`${c.n}-${c.snippet_id}`}>
                <button type="button" className="link" onClick={() => openSource?.({ citations: nearest, n: c.n })}>
                  {c.title || c.path}
                </button>{' '}
                <span className="muted">
                  § {c.section_id} · score {formatScore(c.score_norm)}
                </span>
                <div className="nearest-text">{excerpt(c.text, 160)}</div>
              </li>
            ))}
          </ol>
        </div>
      )}
    </div>
  );
}

/** " (code)" of the first failed check, for the refusal line. */
function firstErrorCode(a: Answer): string {
  const err = (a.validation?.issues ?? []).find((is) => is.severity === 'error');
  return err ? ` (${err.code})` : '';
}

/** The cache badge: a cached answer is always marked, and its tooltip says
 * where it came from, how it was derived and when it stops being served. */
function CacheBadge({ cache, answer, onAskFresh }: { cache: CacheInfo; answer: Answer; onAskFresh?: () => void }) {
  const [open, setOpen] = useState(false);
  return (
    <span
      className="cache-wrap"
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
    >
      <button type="button" className="badge cached" data-testid="cache-badge" aria-describedby="cache-tip">
        Cached
      </button>
      {open && (
        <span role="tooltip" id="cache-tip" className="cache-tooltip" data-testid="cache-tooltip">
          <strong>Served from the answer cache.</strong>
          <span data-testid="cache-original">Original question: “{cache.original_question}”</span>
          <span data-testid="cache-answered">
            Answered {cache.answered_at ? new Date(cache.answered_at).toLocaleString() : 'earlier'}
          </span>
          <span data-testid="cache-similarity">
            Similarity {formatScore(cache.similarity)} (threshold {formatScore(cache.threshold)})
          </span>
          {cache.matched && <CacheMatchList match={cache.matched} />}
          <span data-testid="cache-policy">{cache.policy}</span>
          <CacheProvenance answer={answer} />
        </span>
      )}
      {onAskFresh && (
        <button type="button" className="small" onClick={onAskFresh} data-testid="ask-fresh">
          Ask fresh
        </button>
      )}
    </span>
  );
}

/** Failed provenance checks, each with its code and a one-line fix; never hidden. */
function ValidationIssues({ answer }: { answer: Answer }) {
  const issues = answer.validation?.issues ?? [];
  if (issues.length === 0) return null;
  return (
    <ul className="validation" data-testid="validation-issues">
      {issues.map((is, i) => (
        <li
          key={`${is.code}-${i}`}
          className={is.severity === 'error' ? 'validation-error' : 'validation-warning'}
          data-testid={is.severity === 'error' ? 'validation-error' : 'validation-warning'}
        >
          <code>{is.code}</code> {is.message}. <span className="validation-fix">{is.fix}</span>
        </li>
      ))}
    </ul>
  );
}

/** What a follow-up searched for; editable, to ask again with the edit. */
function SearchedFor({
  question,
  standalone,
  fallback,
  onAskEdited,
}: {
  question: string;
  standalone: string;
  fallback: boolean;
  onAskEdited?: (question: string, standalone: string) => void;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  if (draft !== null && onAskEdited) {
    return (
      <form
        className="searched-for"
        onSubmit={(e) => {
          e.preventDefault();
          if (draft.trim()) onAskEdited(question, draft.trim());
          setDraft(null);
        }}
      >
        <input aria-label="Search for" data-testid="searched-for-input" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit" className="small" data-testid="searched-for-ask">
          Ask again
        </button>
      </form>
    );
  }
  return (
    <p className="muted searched-for" data-testid="searched-for">
      Searched for: {standalone}
      {fallback && ' (rewritten without the model)'}
      {onAskEdited && (
        <>
          {' '}
          <button type="button" className="link small" data-testid="searched-for-edit" onClick={() => setDraft(standalone)}>
            Edit
          </button>
        </>
      )}
    </p>
  );
}
