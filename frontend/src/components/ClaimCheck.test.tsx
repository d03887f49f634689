import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ClaimCheck } from './ClaimCheck';
import type { Verification } from '../types';

const base: Verification = {
  mode: 'strict', claims: 4, supported: 4, partial: 0, unsupported: 0, uncited: 0,
  citations: 4, supporting: 4, failing: null, elapsed_ms: 3,
};

afterEach(cleanup);

describe('ClaimCheck', () => {
  it('says how many claims were verified', () => {
    render(<ClaimCheck verification={base} />);
    expect(screen.getByTestId('claim-check').textContent).toBe('4 of 4 claims verified');
    expect(screen.getByTestId('claim-check').className).not.toContain('failing');
  });

  it('names the failing claims with their reason, as text', () => {
    const reason = 'not supported by [#2]: the passage says 30 days, the claim says 40 MB <b>x</b>';
    render(<ClaimCheck verification={{ ...base, supported: 3, unsupported: 1, failing: [2], reasons: [reason] }} />);
    const el = screen.getByTestId('claim-check');
    expect(el.textContent).toContain('3 of 4 claims verified');
    expect(el.textContent).toContain(reason);
    expect(el.querySelector('b')).toBeNull();
    expect(el.className).toContain('failing');
  });

  it('counts a partly supported claim that lacks one of its values as failing', () => {
    const reason = 'claim 3 "It opened in 2019." is partial: only partly supported: the passage does not state "2019"';
    render(<ClaimCheck verification={{ ...base, supported: 2, partial: 2, failing: [2], reasons: [reason] }} />);
    const el = screen.getByTestId('claim-check');
    expect(el.textContent).toContain('3 of 4 claims verified (2 partly)');
    expect(el.textContent).toContain(reason);
    expect(el.className).toContain('failing');
  });

  it('shows nothing when verification is off', () => {
    const { container } = render(<ClaimCheck verification={null} />);
    expect(container.textContent).toBe('');
  });
});
