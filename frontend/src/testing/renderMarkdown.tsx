// Test-only: renders answer Markdown into a real DOM element the way the
// answer view does (React elements, no HTML strings), for tests that inspect
// the resulting nodes.
import { act } from 'react';
import { createRoot } from 'react-dom/client';
import { renderAnswer, type ChipOptions } from '../markdown';

// Rendering happens inside act(), as under Testing Library.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** The rendered answer inside a detached <div>. */
export function renderAnswerElement(markdown: string, options: ChipOptions): HTMLDivElement {
  const div = document.createElement('div');
  const root = createRoot(div);
  act(() => root.render(<>{renderAnswer(markdown, options)}</>));
  return div;
}

/** The rendered answer's HTML, without citation chips. */
export function renderHtml(markdown: string): string {
  return renderAnswerElement(markdown, { known: new Set(), tooltipId: 'tip' }).innerHTML;
}
