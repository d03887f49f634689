import { useRef } from 'react';
import { createPortal } from 'react-dom';
import { claimWhy } from '../claims';
import { usePlacedNextTo } from '../floating';
import type { ClaimResult } from '../types';

/** Why a marked claim is marked, next to it: the verifier's reason as text. */
export function ClaimTooltip({ id, anchor, claim }: { id: string; anchor: HTMLElement; claim: ClaimResult }) {
  const ref = useRef<HTMLDivElement>(null);
  usePlacedNextTo(anchor, ref);
  return createPortal(
    <div id={id} ref={ref} role="tooltip" className="tooltip claim-tooltip" data-testid="claim-tooltip" data-verdict={claim.verdict}>
      {claimWhy(claim)}
    </div>,
    document.body,
  );
}
