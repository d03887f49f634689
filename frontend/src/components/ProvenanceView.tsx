import { formatScore } from '../format';
import type { Provenance } from '../types';
import { tierName } from './CitationTooltip';

/**
 * How the answer was made, folded under the answer: the derivation chain
 * (search, fusion, the model, claim verification) with each step's data
 * tier, the answer's data tier and its confidence.
 */
export function ProvenanceView({ provenance }: { provenance: Provenance }) {
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
