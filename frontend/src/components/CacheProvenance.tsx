import { formatScore, formatWhen } from '../format';
import type { Answer, Citation } from '../types';
import { tierName } from './CitationTooltip';

/** What a revalidation policy means for the user. */
function policyText(policy: string | undefined): string {
  return policy === 'on_access'
    ? 'on access: revalidated against the live index each time it is served'
    : policy || '—';
}

/** How one cited passage was found: by which retrievers at which rank, how
 * close the vector retriever found it, from which collection and when. */
function SourceAttribution({ citation }: { citation: Citation }) {
  const a = citation.attribution;
  const ranks = (a.retrievers ?? []).map((r) => `${r} #${a.ranks?.[r] ?? '?'}`).join(', ');
  const facts = [
    ranks,
    a.vector_similarity != null ? `vector similarity ${formatScore(a.vector_similarity)}` : '',
    a.collection ? `collection ${a.collection}` : '',
    `retrieved ${formatWhen(a.retrieved_at)}`,
  ].filter(Boolean);
  return (
    <li data-testid="cache-prov-source">
      [#{citation.n}] {citation.title || citation.path} § {citation.section_id}
      <span className="muted"> · {facts.join(' · ')}</span>
    </li>
  );
}

/**
 * The provenance of a cached answer, shown in its cache badge's tooltip as
 * the provenance specification's tooltip does: the data tier, when the
 * evidence was retrieved, the derivation chain, the revalidation policy and
 * the confidence, then how each cited passage was found.
 */
export function CacheProvenance({ answer }: { answer: Answer }) {
  const p = answer.provenance;
  const citations = answer.citations ?? [];
  return (
    <span className="cache-provenance" data-testid="cache-provenance">
      <span data-testid="cache-prov-tier">
        Data tier {p.data_tier} · {tierName(p.data_tier)}
      </span>
      <span data-testid="cache-prov-retrieved">Evidence retrieved {formatWhen(p.source_timestamp)}</span>
      <span data-testid="cache-prov-chain">{(p.derivation_chain ?? []).join(' → ')}</span>
      <span data-testid="cache-prov-policy">Revalidation {policyText(p.revalidation_policy)}</span>
      <span data-testid="cache-prov-confidence">Confidence {formatScore(p.confidence_score)}</span>
      {citations.length > 0 && (
        <ol className="cache-prov-sources">
          {citations.map((c) => (
            <SourceAttribution key={c.n} citation={c} />
          ))}
        </ol>
      )}
    </span>
  );
}
