import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent as ReactKeyboardEvent, type MouseEvent } from 'react';
import { openExternal } from '../api';
import { citationIndex } from '../citations';
import { renderAnswer } from '../markdown';
import type { Citation } from '../types';
import { useOpenSource } from '../viewer';
import { CitationTooltip } from './CitationTooltip';

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
 * Answer text as sanitised Markdown with citation chips. The container's
 * children are managed directly (not by React) because they come from the
 * sanitiser; React only renders the tooltip next to it.
 */
export function AnswerBody({ text, citations, idPrefix, streaming }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState<ActiveChip | null>(null);
  const index = useMemo(() => citationIndex(citations), [citations]);
  const tooltipId = `${idPrefix}-tooltip`;
  const openSource = useOpenSource();

  useLayoutEffect(() => {
    const el = container.current;
    if (!el) return;
    el.replaceChildren(renderAnswer(text, { known: new Set(index.keys()), tooltipId }));
    // Re-rendering replaces the chips; keep the tooltip on the new chip with the same number.
    setActive((prev) => {
      if (!prev) return prev;
      const again = el.querySelector<HTMLElement>(`button.cite[data-n="${prev.n}"]`);
      return again ? { ...prev, el: again } : null;
    });
  }, [text, index, tooltipId]);

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
    const link = e.target.closest('a');
    if (link) {
      // Never navigate the app window away; hand web links to the system browser.
      e.preventDefault();
      openExternal(link.href);
      return;
    }
    const chip = chipOf(e.target);
    if (!chip) return;
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
        onKeyDown={onKeyDown}
      />
      {active && citation && <CitationTooltip id={tooltipId} anchor={active.el} citation={citation} />}
    </>
  );
}
