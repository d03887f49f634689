import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type MouseEvent } from 'react';
import { openExternal } from '../api';
import { citationIndex } from '../citations';
import { resultFor, supportSpans } from '../claims';
import { webLink } from '../links';
import { renderAnswer } from '../markdown';
import type { Citation, ClaimResult } from '../types';
import { useOpenSource } from '../viewer';
import { CitationTooltip } from './CitationTooltip';
import { ClaimTooltip } from './ClaimTooltip';
import { LinkConfirm } from './LinkConfirm';

interface Props {
  text: string;
  citations: Citation[];
  /** Unique per answer; used for the tooltip id the chips point at. */
  idPrefix: string;
  streaming: boolean;
  /** Verification results for exactly this text (none while streaming). */
  claims?: ClaimResult[] | null;
}

interface ActiveChip {
  el: HTMLElement;
  n: number;
  /** Index of the claim the chip stands in; -1 when unknown. */
  claim: number;
  focused: boolean;
}

interface ActiveClaim {
  el: HTMLElement;
  claim: number;
}

/** The id of a marked claim's first piece, for jumping to it from the footer. */
export function claimElementId(idPrefix: string, claim: number): string {
  return `${idPrefix}-claim-${claim}`;
}

/**
 * Answer text rendered from Markdown with citation chips (React elements
 * only, see markdown.tsx). Links open in the system browser only after the
 * reader confirmed the full address.
 */
export function AnswerBody({ text, citations, idPrefix, streaming, claims }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState<ActiveChip | null>(null);
  const [activeClaim, setActiveClaim] = useState<ActiveClaim | null>(null);
  const [pendingLink, setPendingLink] = useState<string | null>(null);
  const index = useMemo(() => citationIndex(citations), [citations]);
  const tooltipId = `${idPrefix}-tooltip`;
  const claimTooltipId = `${idPrefix}-claim-tooltip`;
  const openSource = useOpenSource();
  const nodes = useMemo(
    () =>
      renderAnswer(text, {
        known: new Set(index.keys()),
        tooltipId,
        claims,
        claimIdPrefix: `${idPrefix}-claim`,
        claimTooltipId,
      }),
    [text, index, tooltipId, claims, idPrefix, claimTooltipId],
  );

  useLayoutEffect(() => {
    const el = container.current;
    // A re-render may replace a chip; keep the tooltip on the chip with the same number.
    setActive((prev) => {
      if (!prev || !el || prev.el.isConnected) return prev;
      const again = el.querySelector<HTMLElement>(`button.cite[data-n="${prev.n}"]`);
      return again ? { ...prev, el: again } : null;
    });
  }, [nodes]);

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setActive(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [active]);

  useEffect(() => {
    if (!activeClaim) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setActiveClaim(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [activeClaim]);

  const chipOf = (target: EventTarget): HTMLElement | null =>
    target instanceof Element ? target.closest<HTMLElement>('button.cite') : null;
  const flagOf = (target: EventTarget): HTMLElement | null =>
    target instanceof Element ? target.closest<HTMLElement>('.claim-flag') : null;
  const claimOf = (el: HTMLElement): number => (el.dataset.claim === undefined ? -1 : Number(el.dataset.claim));

  const show = (chip: HTMLElement, focused: boolean) => {
    const n = Number(chip.dataset.n);
    if (!index.has(n)) return;
    const claim = claimOf(chip);
    setActive((prev) =>
      prev && prev.el === chip && (prev.focused || !focused)
        ? prev
        : { el: chip, n, claim, focused: focused || (prev?.el === chip && prev.focused) },
    );
  };

  const showClaim = (flag: HTMLElement) => {
    const claim = claimOf(flag);
    // Anchor on the claim's first (focusable) piece, so pieces share one tooltip.
    const first = container.current?.querySelector<HTMLElement>(`.claim-flag[data-claim="${claim}"]`) ?? flag;
    setActiveClaim((prev) => (prev && prev.el === first ? prev : { el: first, claim }));
  };

  const onClick = (e: MouseEvent) => {
    if (!(e.target instanceof Element)) return;
    const chip = chipOf(e.target);
    const link = e.target.closest('a');
    if (link && !chip) {
      // Never navigate the app window away; web links open in the system
      // browser once the reader confirmed the address.
      e.preventDefault();
      const href = webLink(link.getAttribute('href') ?? '');
      if (href) {
        setActive(null);
        setPendingLink(href);
      }
      return;
    }
    if (!chip) return;
    if (link) e.preventDefault();
    const n = Number(chip.dataset.n);
    if (openSource && index.has(n)) {
      setActive(null);
      const spans = supportSpans(claims, claimOf(chip), citations.map((c) => c.n));
      openSource(spans.size > 0 ? { citations, n, spans } : { citations, n });
    } else {
      show(chip, true);
    }
  };

  // Arrow keys move between the chips of this answer.
  const onKeyDown = (e: ReactKeyboardEvent) => {
    const chip = chipOf(e.target);
    if (!chip || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return;
    const chips = Array.from(container.current?.querySelectorAll<HTMLElement>('button.cite') ?? []);
    const at = chips.indexOf(chip);
    const to = chips[e.key === 'ArrowRight' ? at + 1 : at - 1];
    if (to) {
      e.preventDefault();
      to.focus();
    }
  };

  const citation = active ? index.get(active.n) : undefined;
  return (
    <>
      <div
        ref={container}
        className={`answer-body${streaming ? ' streaming' : ''}`}
        data-testid="answer-body"
        onMouseOver={(e) => {
          const chip = chipOf(e.target);
          if (chip) show(chip, false);
          const flag = chip ? null : flagOf(e.target);
          if (flag) showClaim(flag);
        }}
        onMouseOut={(e) => {
          const chip = chipOf(e.target);
          if (chip && active?.el === chip && !active.focused) setActive(null);
          const flag = flagOf(e.target);
          if (flag && !(e.relatedTarget instanceof Node && flag.contains(e.relatedTarget)) && document.activeElement !== activeClaim?.el) {
            setActiveClaim(null);
          }
        }}
        onFocus={(e) => {
          const chip = chipOf(e.target);
          if (chip) show(chip, true);
          const flag = flagOf(e.target);
          if (flag && !chip) showClaim(flag);
        }}
        onBlur={(e) => {
          if (chipOf(e.target)) setActive(null);
          else if (flagOf(e.target)) setActiveClaim(null);
        }}
        onClick={onClick}
        onAuxClick={(e) => {
          // A middle click must not open a link past the confirmation either.
          if (e.target instanceof Element && e.target.closest('a')) e.preventDefault();
        }}
        onKeyDown={onKeyDown}
      >
        {nodes}
      </div>
      {active && citation && (
        <CitationTooltip id={tooltipId} anchor={active.el} citation={citation} result={resultFor(claims, active.claim, active.n)} />
      )}
      {activeClaim && claims?.[activeClaim.claim] && (
        <ClaimTooltip id={claimTooltipId} anchor={activeClaim.el} claim={claims[activeClaim.claim]!} />
      )}
      {pendingLink && (
        <LinkConfirm
          url={pendingLink}
          onCancel={() => setPendingLink(null)}
          onOpen={async () => {
            await openExternal(pendingLink);
            setPendingLink(null);
          }}
        />
      )}
    </>
  );
}
