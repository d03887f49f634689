import { formatScore, formatWhen } from '../format';
import type { LambdaBasis, Provenance } from '../types';
import { tierName } from './CitationTooltip';

/**
 * How the answer was made, folded under the answer: the derivation chain
 * (search, fusion, the model, claim verification) with each step's data
 * tier, the answer's data tier and its confidence.
 */
export function ProvenanceView({
  provenance,
  lambda,
  lambdaBasis,
}: {
  provenance: Provenance;
  /** The answer's λ state and what it was judged on; absent when it cannot be told. */
  lambda?: string;
  lambdaBasis?: LambdaBasis | null;
}) {
  const p = provenance;
  const steps = p.steps && p.steps.length > 0 ? p.steps : (p.derivation_chain ?? []).map((name) => ({ name, tier: 0 }));
  if (steps.length === 0) return null;
  return (
    <details className="provenance" data-testid="provenance">
      <summary>How this answer was made</summary>
      <ol className="provenance-chain" data-testid="provenance-chain">
        {steps.map((s, i) => (
          <li key={i} data-step={s.name}>
            <code>{s.name}</code>
            {s.tier > 0 && <span className="muted"> · tier {s.tier} ({tierName(s.tier)})</span>}
          </li>
        ))}
      </ol>
      <dl className="provenance-facts">
        <dt>data tier</dt>
        <dd data-testid="provenance-tier">
          {p.data_tier} · {tierName(p.data_tier)}
        </dd>
        <dt>confidence</dt>
        <dd data-testid="provenance-confidence">{formatScore(p.confidence_score)}</dd>
        <dt>retrieved</dt>
        <dd data-testid="provenance-retrieved">{formatWhen(p.source_timestamp)}</dd>
        {p.indexed_at && (
          <>
            <dt>newest passage indexed</dt>
            <dd>{formatWhen(p.indexed_at)}</dd>
          </>
        )}
        {lambdaBasis && (
          <>
            <dt>λ</dt>
            <dd data-testid="provenance-lambda">
              {lambda}: {lambdaBasis.reason}
              {lambdaBasis.previous_at ? ` (${formatWhen(lambdaBasis.previous_at)})` : ''}
            </dd>
          </>
        )}
        {p.data_source && (
          <>
            <dt>source</dt>
            <dd>{p.data_source}</dd>
          </>
        )}
      </dl>
    </details>
  );
}
