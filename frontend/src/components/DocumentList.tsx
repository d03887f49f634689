import { useLayoutEffect, useRef, useState } from 'react';
import type { DocumentInfo } from '../types';

/** Row height in px; rows are fixed-height so only the visible ones need to exist. */
export const ROW_HEIGHT = 28;
const OVERSCAN = 8;
/** Rows rendered before the list has been measured (and in tests without layout). */
const INITIAL_ROWS = 40;

/** The indexed documents with their chunk counts, windowed so thousands stay smooth. */
export function DocumentList({ documents }: { documents: DocumentInfo[] }) {
  const scroller = useRef<HTMLDivElement>(null);
  const [view, setView] = useState({ top: 0, height: 0 });

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const measure = () => setView({ top: el.scrollTop, height: el.clientHeight });
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(measure);
    observer?.observe(el);
    return () => observer?.disconnect();
  }, [documents.length === 0]);

  if (documents.length === 0) {
    return <p className="muted">No documents indexed yet.</p>;
  }
  const visible = view.height > 0 ? Math.ceil(view.height / ROW_HEIGHT) : INITIAL_ROWS;
  const first = Math.max(0, Math.floor(view.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(documents.length, first + visible + 2 * OVERSCAN);
  return (
    <div
      className="document-scroller"
      ref={scroller}
      onScroll={(e) => setView({ top: e.currentTarget.scrollTop, height: e.currentTarget.clientHeight })}
    >
      <ul
        className="document-list"
        data-testid="document-list"
        data-total={documents.length}
        style={{ height: documents.length * ROW_HEIGHT, position: 'relative' }}
      >
        {documents.slice(first, last).map((d, i) => (
          <li
            key={d.doc_id}
            title={`${d.path}\nindexed ${new Date(d.indexed_at).toLocaleString()}`}
            style={{ position: 'absolute', top: (first + i) * ROW_HEIGHT, left: 0, right: 0, height: ROW_HEIGHT }}
          >
            <span className="doc-title">{d.title || d.path}</span>
            <span className="doc-format">{d.format}</span>
            <span className="doc-chunks">{d.chunks}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
