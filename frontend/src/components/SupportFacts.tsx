import { excerpt } from '../citations';
import { verdictLabel } from '../claims';
import { formatScore } from '../format';
import type { ClaimCheckResult, VerifyResult } from '../types';

/**
 * How one claim fared against one cited passage, compactly: verdict and
 * score, the supporting sentence(s), the signals the verdict came from and
 * what failed. All values come from the Go verifier and render as text.
 */
export function SupportFacts({ result }: { result: VerifyResult }) {
  const s = result.signals;
  const signals = [
    `lexical ${formatScore(s.lexical)}`,
    s.semantic != null ? `semantic ${formatScore(s.semantic)}` : '',
    s.entailment != null ? `entailment ${formatScore(s.entailment)}` : '',
    s.contradiction != null ? `contradiction ${formatScore(s.contradiction)}` : '',
  ].filter(Boolean);
  const failed = (s.checks ?? []).filter((c) => !c.ok);
  return (
    <div className="support" data-testid="tooltip-support">
      <div className={`support-verdict verdict-${result.verdict}`} data-testid="tooltip-verdict">
        {verdictLabel(result.verdict)} · score {formatScore(result.score)}
      </div>
      {result.span.text && (
        <blockquote className="tooltip-excerpt" data-testid="tooltip-span">
          {excerpt(result.span.text)}
        </blockquote>
      )}
      <div className="support-signals muted" data-testid="tooltip-signals">
        {signals.join(' · ')}
      </div>
      {failed.length > 0 && (
        <ul className="support-failed" data-testid="tooltip-failed-checks">
          {failed.map((c, i) => (
            <li key={i}>{describeCheck(c)}</li>
          ))}
        </ul>
      )}
      {(s.missing ?? []).length > 0 && (
        <div className="support-missing muted" data-testid="tooltip-missing">
          missing: {(s.missing ?? []).join(', ')}
        </div>
      )}
      {result.reason && failed.length === 0 && (
        <div className="support-reason" data-testid="tooltip-reason">
          {result.reason}
        </div>
      )}
    </div>
  );
}

/** A failed hard constraint in words, e.g. "number: passage 20 MB, claim 40 MB". */
export function describeCheck(c: ClaimCheckResult): string {
  if (c.detail) return `${c.kind}: ${c.detail}`;
  if (c.passage) return `${c.kind}: passage ${c.passage}, claim ${c.claim}`;
  return `${c.kind}: ${c.claim} not in the passage`;
}
