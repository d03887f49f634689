import { useRef } from 'react';
import { createPortal } from 'react-dom';
import { excerpt } from '../citations';
import { usePlacedNextTo } from '../floating';
import { formatScore, formatWhen } from '../format';
import type { Citation, VerifyResult } from '../types';
import { SupportFacts } from './SupportFacts';

interface Props {
  id: string;
  anchor: HTMLElement;
  citation: Citation;
  /** How the chip's claim fared against this passage, when verified. */
  result?: VerifyResult;
}

/** Where a cited claim comes from, positioned next to its chip. */
export function CitationTooltip({ id, anchor, citation, result }: Props) {
  const ref = useRef<HTMLDivElement>(null);
  usePlacedNextTo(anchor, ref);

  const c = citation;
  const explain = c.explain ?? [];
  return createPortal(
    <div id={id} ref={ref} role="tooltip" className="tooltip" data-testid="citation-tooltip">
      <div className="tooltip-title">
        <span className="tooltip-n">[{c.n}]</span> {c.title || c.path}
      </div>
      <div className="tooltip-path" title={c.source_url || c.path}>
        {c.path}
      </div>
      {result ? (
        <SupportFacts result={result} />
      ) : (
        <blockquote className="tooltip-excerpt" data-testid="tooltip-snippet">
          {excerpt(c.text)}
        </blockquote>
      )}
      <dl className="tooltip-facts">
        <dt>section</dt>
        <dd data-testid="tooltip-section">{c.section_id}</dd>
        {c.page ? (
          <>
            <dt>page</dt>
            <dd data-testid="tooltip-page">
              {c.page}
              {c.ocr && (
                <span className="ocr-mark" data-testid="tooltip-ocr" title="This page is a scan; its words were recognised by OCR and may hold errors">
                  {' '}
                  · OCR
                </span>
              )}
            </dd>
          </>
        ) : null}
        <dt>score</dt>
        <dd data-testid="tooltip-score">{formatScore(c.score_norm)}</dd>
        {c.delta_s != null && (
          <>
            <dt title="1 − cosine of question and passage by the embedding model; lower is closer">ΔS</dt>
            <dd data-testid="tooltip-delta-s">{c.delta_s.toFixed(3)}</dd>
          </>
        )}
        {c.k_final ? (
          <>
            <dt>rank</dt>
            <dd data-testid="tooltip-rank">
              {c.k_final} after fusion
              {explain.length > 0 && (
                <span className="muted">
                  {' '}
                  ({explain.map((e) => `${e.retriever} #${e.k_pos}`).join(', ')})
                </span>
              )}
            </dd>
          </>
        ) : null}
        {explain.length > 0 && (
          <>
            <dt title="Each retriever's weight for this question: how clearly its best hits stood out, times how much of the question the embedding model could read">
              found by
            </dt>
            <dd data-testid="tooltip-retrievers">
              {explain.map(foundBy).join(' + ')}
              {coverageNote(explain)}
            </dd>
          </>
        )}
        {c.context ? (
          <>
            <dt title="Indexed and embedded with the passage, so a question naming the document, section or column finds it; not part of the quoted text">
              indexed with
            </dt>
            <dd data-testid="tooltip-context" className="tooltip-context">
              {c.context}
            </dd>
          </>
        ) : null}
        <dt>snippet</dt>
        <dd>{c.snippet_id}</dd>
        <dt>offsets</dt>
        <dd>
          {c.offsets.start}–{c.offsets.end} {c.offsets.unit}
        </dd>
        <dt>tokens</dt>
        <dd>{c.tokens}</dd>
        {c.embed_model ? (
          <>
            <dt>embedding</dt>
            <dd>{c.embed_model}</dd>
          </>
        ) : null}
        {c.rev ? (
          <>
            <dt>revision</dt>
            <dd data-testid="tooltip-rev">
              {c.rev}
              {c.stale ? (
                <span className="stale" data-testid="tooltip-stale">
                  {' '}
                  · changed since indexed
                </span>
              ) : null}
            </dd>
          </>
        ) : null}
        {c.created_at && formatWhen(c.created_at) !== '—' ? (
          <>
            <dt>indexed</dt>
            <dd data-testid="tooltip-indexed">{formatWhen(c.created_at)}</dd>
          </>
        ) : null}
        {c.index_hash ? (
          <>
            <dt>index</dt>
            <dd data-testid="tooltip-index-hash">{c.index_hash}</dd>
          </>
        ) : null}
        {c.analyzer ? (
          <>
            <dt>analyzer</dt>
            <dd data-testid="tooltip-analyzer" className="tooltip-analyzer">
              {c.analyzer}
            </dd>
          </>
        ) : null}
        {c.data_tier ? (
          <>
            <dt>data tier</dt>
            <dd data-testid="tooltip-tier">
              {c.data_tier} · {tierName(c.data_tier)}
            </dd>
          </>
        ) : null}
      </dl>
      <p className="tooltip-hint muted">Click to open the passage · ←/→ next citation</p>
    </div>,
    document.body,
  );
}

type Contribution = NonNullable<Citation['explain']>[number];

/** "vector ×0.02": a retriever and its weight for this question, when weighted. */
export function foundBy(e: Contribution): string {
  return e.weight != null ? `${e.retriever} ×${e.weight.toFixed(2)}` : e.retriever;
}

/** Says how much of the question the embedding model could read, when not all of it. */
export function coverageNote(explain: Contribution[]): string {
  const cov = explain.find((e) => e.coverage != null)?.coverage;
  if (cov == null || cov >= 1) return '';
  return ` · the embedding model knows ${Math.round(cov * 100)}% of the question's words`;
}

/** Words for the provenance data tiers (1 authoritative … 4 inferred). */
export function tierName(tier: number): string {
  switch (tier) {
    case 1:
      return 'your documents';
    case 2:
      return 'your notes';
    case 3:
      return 'system';
    default:
      return 'inferred';
  }
}
