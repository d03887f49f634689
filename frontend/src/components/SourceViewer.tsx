import { useEffect, useLayoutEffect, useRef, useState } from 'react';
import { api, errorMessage } from '../api';
import { formatScore } from '../format';
import type { Range } from '../sourcetable';
import type { Citation, DocumentView, SupportSpan } from '../types';
import { SourceText } from './SourceText';

interface Props {
  citations: Citation[];
  /** The sentence(s) that support the claim, by citation number: highlighted strongly inside the passage. */
  spans?: ReadonlyMap<number, SupportSpan>;
  /** Position in citations of the one shown. */
  index: number;
  onIndex: (index: number) => void;
  onClose: () => void;
}

type Loaded = { doc: DocumentView } | { error: string };

/**
 * The cited document's stored text (for a PDF, its pages' text) with the
 * passage text[start:end] highlighted faintly, the supporting sentence(s)
 * inside it strongly, and that scrolled into view; steps through an
 * answer's citations.
 */
export function SourceViewer({ citations, spans, index, onIndex, onClose }: Props) {
  const c = citations[index];
  const [docs, setDocs] = useState<Record<string, Loaded>>({});
  const [openError, setOpenError] = useState<string | null>(null);
  const dialog = useRef<HTMLDivElement>(null);
  const mark = useRef<HTMLElement>(null);
  const strong = useRef<HTMLElement>(null);
  const docId = c?.doc_id ?? '';
  const loaded = docs[docId];

  useEffect(() => {
    if (!docId || docs[docId]) return;
    let cancelled = false;
    api.openDocument(docId).then(
      (doc) => !cancelled && setDocs((d) => ({ ...d, [docId]: { doc } })),
      (err: unknown) => !cancelled && setDocs((d) => ({ ...d, [docId]: { error: errorMessage(err) } })),
    );
    return () => {
      cancelled = true;
    };
  }, [docId, docs]);

  useEffect(() => {
    dialog.current?.focus();
  }, []);

  useLayoutEffect(() => {
    (strong.current ?? mark.current)?.scrollIntoView?.({ block: 'center' });
  }, [loaded, index]);

  useEffect(() => setOpenError(null), [index]);

  if (!c) return null;
  const prev = () => index > 0 && onIndex(index - 1);
  const next = () => index < citations.length - 1 && onIndex(index + 1);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    } else if (e.key === 'ArrowLeft' || e.key === '[') {
      e.preventDefault();
      prev();
    } else if (e.key === 'ArrowRight' || e.key === ']') {
      e.preventDefault();
      next();
    }
  };
  const openOriginal = async () => {
    setOpenError(null);
    try {
      await api.openOriginal(c.doc_id);
    } catch (err) {
      setOpenError(errorMessage(err));
    }
  };

  let body;
  let legend = false;
  let warning: string | null = null;
  if (!loaded) {
    body = <p className="muted">Opening the document…</p>;
  } else if ('error' in loaded) {
    body = (
      <p className="answer-error" role="alert" data-testid="source-error">
        {loaded.error}
      </p>
    );
  } else {
    const points = Array.from(loaded.doc.text);
    const passage = { start: Math.min(c.offsets.start, points.length), end: Math.min(c.offsets.end, points.length) };
    const shown = points.slice(passage.start, passage.end).join('');
    const support = supportRange(shown, passage.start, spans?.get(c.n));
    legend = support !== null;
    if (c.rev && loaded.doc.rev && c.rev !== loaded.doc.rev) {
      warning = 'This document changed after the answer was written; the highlighted passage may have moved.';
    } else if (c.text && shown !== c.text) {
      warning = 'The stored text no longer matches the cited passage; re-index the document.';
    }
    body = <SourceText points={points} passage={passage} support={support} markRef={mark} strongRef={strong} />;
  }

  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        className="viewer"
        role="dialog"
        aria-modal="true"
        aria-label={`Source of citation ${c.n}`}
        data-testid="source-viewer"
        tabIndex={-1}
        ref={dialog}
        onKeyDown={onKeyDown}
      >
        <header className="viewer-head">
          <div className="viewer-title">
            <span className="tooltip-n">[{c.n}]</span> <strong>{c.title || c.path}</strong>
            <div className="viewer-meta muted">
              <span className="path" title={c.path}>
                <bdi>{c.path}</bdi>
              </span>
              <span>§ {c.section_id}</span>
              {c.page ? (
                <span data-testid="source-page" title={c.ocr ? 'A scanned page: its words were recognised by OCR and may hold errors' : undefined}>
                  page {c.page}
                  {c.ocr ? ' · OCR' : ''}
                </span>
              ) : null}
              <span>score {formatScore(c.score_norm)}</span>
            </div>
          </div>
          <div className="viewer-actions">
            <button type="button" onClick={prev} disabled={index === 0} aria-label="Previous citation" data-testid="source-prev">
              ←
            </button>
            <span className="muted viewer-count">
              {index + 1} / {citations.length}
            </span>
            <button
              type="button"
              onClick={next}
              disabled={index >= citations.length - 1}
              aria-label="Next citation"
              data-testid="source-next"
            >
              →
            </button>
            <button type="button" onClick={() => void openOriginal()} data-testid="open-original">
              Open original
            </button>
            <button type="button" onClick={onClose} aria-label="Close" data-testid="source-close">
              ✕
            </button>
          </div>
        </header>
        {warning && (
          <p className="viewer-warning" role="status">
            {warning}
          </p>
        )}
        {openError && (
          <p className="answer-error" role="alert">
            {openError}
          </p>
        )}
        {legend && (
          <p className="viewer-legend muted" data-testid="source-legend">
            Strong: the sentence(s) supporting the claim · faint: the rest of the cited passage
          </p>
        )}
        <div className="viewer-body">{body}</div>
      </div>
    </div>
  );
}

/**
 * The supporting span as a range of the document, when it lies inside the
 * passage as shown (offsets count code points, like the passage's); null
 * when there is no span or it does not.
 */
export function supportRange(passage: string, passageStart: number, span: SupportSpan | undefined): Range | null {
  if (!span) return null;
  const start = span.offsets.start - passageStart;
  const end = span.offsets.end - passageStart;
  const length = Array.from(passage).length;
  if (start < 0 || end <= start || end > length) return null;
  return { start: span.offsets.start, end: span.offsets.end };
}
