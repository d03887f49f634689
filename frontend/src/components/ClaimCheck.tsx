import type { Verification } from '../types';

/**
 * ClaimCheck says how the answer's claims fared against the passages they
 * cite: "4 of 4 claims verified", or which claims fail and why. The reasons
 * are plain text from the backend, rendered as text; with onJump each one
 * is a button that moves to the claim marked in the answer.
 */
export function ClaimCheck({
  verification,
  onJump,
}: {
  verification?: Verification | null;
  /** Moves to failing claim i (an index into the answer's claims). */
  onJump?: (claim: number) => void;
}) {
  if (!verification || verification.claims === 0) return null;
  const v = verification;
  // Failing claims are the ones that do not hold: unsupported, uncited, or
  // partly supported without one of their values (verify.Result.Holds).
  const failed = v.failing?.length ?? 0;
  const ok = v.claims - failed;
  const noun = v.claims === 1 ? 'claim' : 'claims';
  const failing = failed > 0 || Boolean(v.error);
  return (
    <div className={failing ? 'claim-check failing' : 'claim-check'} data-testid="claim-check">
      <span>
        {ok} of {v.claims} {noun} verified
        {v.partial > 0 ? ` (${v.partial} partly)` : ''}
        {v.mode === 'warn' && failing ? ' · verification is set to warn only' : ''}
      </span>
      {v.error && <span className="claim-reason">Could not verify: {v.error}</span>}
      {(v.reasons ?? []).length > 0 && (
        <ul className="claim-reasons">
          {(v.reasons ?? []).map((r, i) => {
            const claim = v.failing?.[i];
            return (
              <li key={i}>
                {onJump && claim !== undefined ? (
                  <button type="button" className="link claim-jump" data-testid="claim-jump" data-claim={claim} onClick={() => onJump(claim)}>
                    {r}
                  </button>
                ) : (
                  r
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
