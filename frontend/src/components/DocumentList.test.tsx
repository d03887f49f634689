import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { DocumentInfo } from '../types';
import { DocumentList, ROW_HEIGHT } from './DocumentList';

const docs: DocumentInfo[] = Array.from({ length: 5000 }, (_, i) => ({
  doc_id: `d${i}`,
  title: `Doc ${i}`,
  path: `/docs/${i}.md`,
  format: 'md',
  rev: 'r',
  chunks: 1,
  indexed_at: '2026-01-01T00:00:00Z',
}));

describe('DocumentList', () => {
  afterEach(cleanup);

  it('renders only a window of rows for thousands of documents and follows scrolling', () => {
    render(<DocumentList documents={docs} />);
    const list = screen.getByTestId('document-list');
    expect(list.dataset.total).toBe('5000');
    const rows = list.querySelectorAll('li');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]?.textContent).toContain('Doc 0');

    const scroller = list.parentElement as HTMLElement;
    Object.defineProperty(scroller, 'clientHeight', { value: 10 * ROW_HEIGHT, configurable: true });
    scroller.scrollTop = 3000 * ROW_HEIGHT;
    fireEvent.scroll(scroller);
    const titles = Array.from(list.querySelectorAll('li .doc-title')).map((e) => e.textContent);
    expect(titles).toContain('Doc 3000');
    expect(titles).not.toContain('Doc 0');
  });
});
