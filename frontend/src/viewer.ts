// Lets any citation chip open the source viewer without threading a
// callback through every component in between.
import { createContext, useContext } from 'react';
import type { Citation, SupportSpan } from './types';

export interface SourceRequest {
  /** The citations the viewer can step through (one answer's). */
  citations: Citation[];
  /** Number (n) of the citation to show first. */
  n: number;
  /** The sentence(s) of each passage that support the claim, by citation number. */
  spans?: ReadonlyMap<number, SupportSpan>;
}

export const OpenSourceContext = createContext<((request: SourceRequest) => void) | null>(null);

export function useOpenSource(): ((request: SourceRequest) => void) | null {
  return useContext(OpenSourceContext);
}
