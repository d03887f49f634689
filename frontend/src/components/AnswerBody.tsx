import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type MouseEvent } from 'react';
import { openExternal } from '../api';
import { citationIndex } from '../citations';
import { webLink } from '../links';
import { renderAnswer } from '../markdown';
import type { Citation } from '../types';
import { useOpenSource } from '../viewer';
import { CitationTooltip } from './CitationTooltip';
import { LinkConfirm } from './LinkConfirm';

interface Props {
  text: string;
  citations: Citation[];
  /** Unique per answer; used for the tooltip id the chips point at. */
  idPrefix: string;
  streaming: boolean;
}

interface ActiveChip {
  el: HTMLElement;
  n: number;
  focused: boolean;
}

/**
 * Answer text rendered from Markdown with citation chips (React elements
 * only, see markdown.tsx). Links open in the system browser only after the
 * reader confirmed the full address.
 */
export function AnswerBody({ text, citations, idPrefix, streaming }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState<ActiveChip | null>(null);
  const [pendingLink, setPendingLink] = useState<string | null>(null);
  const index = useMemo(() => citationIndex(citations), [citations]);
  const tooltipId = `${idPrefix}-tooltip`;
  const openSource = useOpenSource();
  const nodes = useMemo(() => renderAnswer(text, { known: new Set(index.keys()), tooltipId }), [text, index, tooltipId]);

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

  const chipOf = (target: EventTarget): HTMLElement | null =>
    target instanceof Element ? target.closest<HTMLElement>('button.cite') : null;

  const show = (chip: HTMLElement, focused: boolean) => {
    const n = Number(chip.dataset.n);
    if (!index.has(n)) return;
    setActive((prev) =>
      prev && prev.el === chip && (prev.focused || !focused) ? prev : { el: chip, n, focused: focused || (prev?.el === chip && prev.focused) },
    );
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
      openSource({ citations, n });
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
        }}
        onMouseOut={(e) => {
          const chip = chipOf(e.target);
          if (chip && active?.el === chip && !active.focused) setActive(null);
        }}
        onFocus={(e) => {
          const chip = chipOf(e.target);
          if (chip) show(chip, true);
        }}
        onBlur={(e) => {
          if (chipOf(e.target)) setActive(null);
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
      {active && citation && <CitationTooltip id={tooltipId} anchor={active.el} citation={citation} />}
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
