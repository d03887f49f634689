import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { citation, installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import { supportSpans } from '../claims';
import unsupportedJson from '../testdata/answer-unsupported.json';
import type { Answer, DocumentView } from '../types';
import { SourceViewer, supportRange } from './SourceViewer';

// Real `footnote ask --json` output: passage [#1] starts with Korean and
// emoji, so its span's code-point offsets differ from UTF-16 indexes.
const real = unsupportedJson as unknown as Answer;

const TEXT = '# Ünïcödé 😀 guide\n\nIntro.\n\nTo install, download the AppImage.\n\nLater text.';

function doc(id: string, overrides: Partial<DocumentView> = {}): DocumentView {
  return {
    doc_id: id,
    title: 'Guide',
    path: '/docs/guide.md',
    format: 'md',
    rev: 'rev-1',
    chunks: 3,
    indexed_at: '2026-01-01T00:00:00Z',
    size: TEXT.length,
    mod_time: '2026-01-01T00:00:00Z',
    collection: '',
    text: TEXT,
    chars: Array.from(TEXT).length,
    ...overrides,
  };
}

function spanOf(text: string) {
  const points = Array.from(TEXT);
  const start = Array.from(TEXT.slice(0, TEXT.indexOf(text))).length;
  expect(points.slice(start, start + Array.from(text).length).join('')).toBe(text);
  return { start, end: start + Array.from(text).length, unit: 'char' as const };
}

describe('SourceViewer', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
    Element.prototype.scrollIntoView = vi.fn();
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('highlights exactly text[start:end] in code points, steps through citations, and opens the original by id', async () => {
    bridge.app.OpenDocument.mockImplementation(async (id: string) => doc(id));
    bridge.app.OpenOriginal.mockResolvedValue(undefined);
    const c1 = citation(1, { doc_id: 'd1', rev: 'rev-1', offsets: spanOf('To install, download the AppImage.'), text: 'To install, download the AppImage.' });
    const c2 = citation(2, { doc_id: 'd1', rev: 'rev-1', offsets: spanOf('Later text.'), text: 'Later text.', page: 7, ocr: true });
    let index = 0;
    const onIndex = vi.fn((i: number) => (index = i));
    const onClose = vi.fn();
    const { rerender } = render(<SourceViewer citations={[c1, c2]} index={index} onIndex={onIndex} onClose={onClose} />);

    const mark = await screen.findByTestId('source-highlight');
    expect(mark.textContent).toBe('To install, download the AppImage.');
    expect(screen.queryByTestId('source-support')).toBeNull();
    expect(screen.queryByTestId('source-legend')).toBeNull();
    expect(screen.getByTestId('source-text').textContent).toBe(TEXT);
    expect(Element.prototype.scrollIntoView).toHaveBeenCalled();
    expect(screen.queryByRole('status')).toBeNull(); // no stale warning

    fireEvent.keyDown(screen.getByTestId('source-viewer'), { key: 'ArrowRight' });
    expect(onIndex).toHaveBeenCalledWith(1);
    rerender(<SourceViewer citations={[c1, c2]} index={1} onIndex={onIndex} onClose={onClose} />);
    expect((await screen.findByTestId('source-highlight')).textContent).toBe('Later text.');
    expect(screen.getByTestId('source-page').textContent).toBe('page 7 · OCR');
    expect(bridge.app.OpenDocument).toHaveBeenCalledTimes(1); // cached per document

    fireEvent.click(screen.getByTestId('open-original'));
    await waitFor(() => expect(bridge.app.OpenOriginal).toHaveBeenCalledWith('d1'));

    fireEvent.keyDown(screen.getByTestId('source-viewer'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });

  it('flags a document that changed since the answer', async () => {
    bridge.app.OpenDocument.mockResolvedValue(doc('d1', { rev: 'rev-2' }));
    const c = citation(1, { doc_id: 'd1', rev: 'rev-1', offsets: spanOf('Intro.'), text: 'Intro.' });
    render(<SourceViewer citations={[c]} index={0} onIndex={() => {}} onClose={() => {}} />);
    expect((await screen.findByRole('status')).textContent).toMatch(/changed after the answer/);
  });

  it('shows why a document cannot be opened', async () => {
    bridge.app.OpenDocument.mockRejectedValue('this document is no longer in the index; re-index its folder and ask again');
    render(<SourceViewer citations={[citation(1)]} index={0} onIndex={() => {}} onClose={() => {}} />);
    await act(async () => {});
    expect((await screen.findByTestId('source-error')).textContent).toMatch(/no longer in the index/);
  });

  it('highlights the supporting sentence strongly inside the faint passage, also in a PDF page text, and scrolls to it', async () => {
    const passage = real.citations![0]!;
    const docText = `${passage.text}\n\nMore text after the passage.\n`;
    bridge.app.OpenDocument.mockResolvedValue(doc(passage.doc_id, { text: docText, chars: Array.from(docText).length, rev: passage.rev, format: 'pdf' }));
    const scrolled: Element[] = [];
    Element.prototype.scrollIntoView = vi.fn(function (this: Element) {
      scrolled.push(this);
    });
    const cited = { ...passage, page: 2 };
    const spans = supportSpans(real.claims, 0, [1]);
    render(<SourceViewer citations={[cited]} spans={spans} index={0} onIndex={() => {}} onClose={() => {}} />);
    const strong = await screen.findByTestId('source-support');
    expect(strong.textContent).toBe('Shared exports 📎 have an upload limit of 20 MB per file.');
    expect(strong.textContent).toBe(real.claims![0]!.results![0]!.span.text);
    const faint = screen.getByTestId('source-highlight');
    expect(faint.className).toContain('faint');
    expect(faint.textContent).toBe(passage.text);
    expect(screen.getByTestId('source-text').textContent).toBe(docText);
    expect(screen.getByTestId('source-page').textContent).toBe('page 2');
    expect(scrolled.at(-1)).toBe(strong);
    expect(screen.getByTestId('source-legend').textContent).toMatch(/^Strong: the sentence/);
    expect(screen.queryByRole('status')).toBeNull();
  });

  it('falls back to the passage highlight when a span lies outside it', () => {
    const span = { offsets: { start: 5, end: 9, unit: 'char' }, text: 'x', sentences: 1, passage_start: 0, passage_end: 1 };
    expect(supportRange('a😀가bcdef', 0, { ...span, offsets: { start: 1, end: 3, unit: 'char' } })).toEqual({ start: 1, end: 3 });
    expect(supportRange('a😀가bcdef', 10, { ...span, offsets: { start: 11, end: 13, unit: 'char' } })).toEqual({ start: 11, end: 13 });
    expect(supportRange('abc', 10, span)).toBeNull();
    expect(supportRange('abc', 0, undefined)).toBeNull();
  });

  it('shows a spreadsheet table as a table and highlights the cited rows cell by cell', async () => {
    const sheet = '# Prices\n\n| Item | Price |\n| --- | --- |\n| Tea | 3.50 |\n| Coffee 😀 | 4.20 |\n| Cake | 5.00 |\n\nPrices include tax.';
    bridge.app.OpenDocument.mockImplementation(async (id: string) => doc(id, { text: sheet }));
    const cited = '| Coffee 😀 | 4.20 |\n| Cake | 5.00 |';
    const start = Array.from(sheet.slice(0, sheet.indexOf(cited))).length;
    const c = citation(1, { doc_id: 'd1', rev: 'rev-1', offsets: { start, end: start + Array.from(cited).length, unit: 'char' }, text: cited });
    render(<SourceViewer citations={[c]} index={0} onIndex={vi.fn()} onClose={vi.fn()} />);

    const table = await screen.findByTestId('source-table');
    expect(Array.from(table.querySelectorAll('th')).map((th) => th.textContent)).toEqual(['Item', 'Price']);
    const rows = Array.from(table.querySelectorAll('tbody tr')).map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent));
    expect(rows).toEqual([
      ['Tea', '3.50'],
      ['Coffee 😀', '4.20'],
      ['Cake', '5.00'],
    ]);
    const marked = Array.from(table.querySelectorAll('mark.source-highlight')).map((m) => m.textContent);
    expect(marked).toEqual(['Coffee 😀', '4.20', 'Cake', '5.00']);
    expect(screen.getByTestId('source-highlight').textContent).toBe('Coffee 😀'); // the first piece, scrolled to
    expect(screen.getByTestId('source-text').textContent).toContain('Prices include tax.');
    expect(screen.queryByRole('status')).toBeNull(); // the passage still matches the stored text
  });
});
