// Keeps a floating element (a tooltip) next to its anchor while either moves.
import { autoUpdate, computePosition, flip, offset, shift } from '@floating-ui/dom';
import { useLayoutEffect, type RefObject } from 'react';

export function usePlacedNextTo(anchor: HTMLElement, ref: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const floating = ref.current;
    if (!floating) return;
    floating.removeAttribute('data-placed');
    return autoUpdate(anchor, floating, () => {
      void computePosition(anchor, floating, {
        placement: 'top',
        strategy: 'fixed',
        middleware: [offset(8), flip(), shift({ padding: 8 })],
      }).then(({ x, y }) => {
        floating.style.left = `${x}px`;
        floating.style.top = `${y}px`;
        floating.setAttribute('data-placed', '');
      });
    });
  }, [anchor, ref]);
}
