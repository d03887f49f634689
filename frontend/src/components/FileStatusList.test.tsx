import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FileStatus } from '../types';
import { FILE_ROW_HEIGHT, FileStatusList, baseName } from './FileStatusList';

const files: FileStatus[] = Array.from({ length: 5000 }, (_, i) =>
  i % 1000 === 7
    ? { path: `/docs/${i}.pdf`, status: 'failed', reason: `damaged PDF ${i}`, chunks: 0 }
    : { path: `/docs/${i}.md`, status: 'indexed', title: `Doc ${i}`, chunks: 1, indexed_at: '2026-01-01T00:00:00Z' },
);

describe('FileStatusList', () => {
  afterEach(cleanup);

  it('renders only a window of rows for thousands of files and follows scrolling', () => {
    render(<FileStatusList files={files} />);
    const list = screen.getByTestId('file-list');
    expect(list.dataset.total).toBe('5000');
    const rows = list.querySelectorAll('li');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(100);
    expect(rows[0]?.textContent).toContain('Doc 0');

    const scroller = list.parentElement as HTMLElement;
    Object.defineProperty(scroller, 'clientHeight', { value: 10 * FILE_ROW_HEIGHT, configurable: true });
    scroller.scrollTop = 3000 * FILE_ROW_HEIGHT;
    fireEvent.scroll(scroller);
    const names = Array.from(list.querySelectorAll('li .file-name')).map((e) => e.textContent);
    expect(names).toContain('Doc 3000');
    expect(names).not.toContain('Doc 0');
  });

  it('filters by state and shows why a file failed', () => {
    render(<FileStatusList files={files} />);
    expect(screen.getByTestId('file-filter-failed').textContent).toBe('Failed 5');
    expect(screen.queryByTestId('file-filter-skipped')).toBeNull();
    fireEvent.click(screen.getByTestId('file-filter-failed'));
    const list = screen.getByTestId('file-list');
    expect(list.dataset.total).toBe('5');
    const first = list.querySelector('li');
    expect(first?.textContent).toContain('7.pdf');
    expect(first?.textContent).toContain('damaged PDF 7');
    expect(first?.querySelector('[data-status]')?.getAttribute('data-status')).toBe('failed');
  });

  it('says why a file is kept out of evidence and offers the override', () => {
    const chat: FileStatus = {
      path: '/docs/chat_transcript.txt',
      status: 'indexed',
      chunks: 1,
      content_check: { source: 'model', reason: 'looks like a chat transcript (assistant: and user: turns)', overridden: false },
    };
    const plain: FileStatus = { path: '/docs/plain.md', status: 'indexed', chunks: 2 };
    const onTreat = vi.fn();
    const { rerender } = render(<FileStatusList files={[chat, plain]} onTreatAsDocument={onTreat} />);
    const rows = screen.getByTestId('file-list').querySelectorAll('li');
    expect(rows[0]?.textContent).toContain(
      'kept out of evidence: looks like a chat transcript (assistant: and user: turns)',
    );
    expect(rows[1]?.textContent).not.toContain('kept out');
    expect(rows[1]?.querySelector('[data-testid="treat-as-document"]')).toBeNull();
    const button = rows[0]?.querySelector('[data-testid="treat-as-document"]') as HTMLButtonElement;
    expect(button.textContent).toBe('Treat as a document');
    fireEvent.click(button);
    expect(onTreat).toHaveBeenCalledWith('/docs/chat_transcript.txt', true);

    rerender(
      <FileStatusList
        files={[{ ...chat, content_check: { ...chat.content_check!, overridden: true } }, plain]}
        onTreatAsDocument={onTreat}
      />,
    );
    const row = screen.getByTestId('file-list').querySelector('li');
    expect(row?.textContent).toContain('treated as a document');
    const undo = row?.querySelector('[data-testid="treat-as-document"]') as HTMLButtonElement;
    expect(undo.textContent).toBe('Keep out of evidence');
    fireEvent.click(undo);
    expect(onTreat).toHaveBeenLastCalledWith('/docs/chat_transcript.txt', false);
  });

  it('says why a file was set aside and offers to try it again', () => {
    const slow: FileStatus = {
      path: '/docs/dump.txt',
      status: 'failed',
      chunks: 0,
      reason: 'splitting its 2 MiB of text into passages took longer than 1m20s, so it was stopped',
      set_aside: true,
    };
    const broken: FileStatus = { path: '/docs/broken.md', status: 'failed', chunks: 0, reason: 'not valid UTF-8' };
    const onRetry = vi.fn();
    render(<FileStatusList files={[slow, broken]} onRetry={onRetry} />);
    const rows = screen.getByTestId('file-list').querySelectorAll('li');
    expect(rows[0]?.textContent).toContain('took longer than 1m20s');
    expect(rows[1]?.querySelector('[data-testid="retry-file"]')).toBeNull();
    const button = rows[0]?.querySelector('[data-testid="retry-file"]') as HTMLButtonElement;
    expect(button.textContent).toBe('Try again');
    fireEvent.click(button);
    expect(onRetry).toHaveBeenCalledWith('/docs/dump.txt');
  });

  it('names a file by the last part of its path', () => {
    expect(baseName('/a/b/c.md')).toBe('c.md');
    expect(baseName('C:\\docs\\d.pdf')).toBe('d.pdf');
  });

  it('marks a document whose scanned pages were read by OCR', () => {
    const scan: FileStatus = { path: '/docs/scan.pdf', status: 'indexed', title: 'Scan', chunks: 3, ocr_pages: [2, 3] };
    const typed: FileStatus = { path: '/docs/typed.pdf', status: 'indexed', title: 'Typed', chunks: 1 };
    render(<FileStatusList files={[scan, typed]} />);
    const rows = screen.getByTestId('file-list').querySelectorAll('li');
    expect(rows[0]?.querySelector('[data-testid="ocr-badge"]')?.textContent).toBe('OCR');
    expect(rows[0]?.textContent).toContain('pages 2, 3 read by OCR');
    expect(rows[1]?.querySelector('[data-testid="ocr-badge"]')).toBeNull();
  });

  it('says which charset a file was read in', () => {
    const korean: FileStatus = { path: '/docs/seoul.txt', status: 'indexed', chunks: 1, charset: 'EUC-KR (CP949)' };
    const plain: FileStatus = { path: '/docs/plain.md', status: 'indexed', chunks: 1 };
    render(<FileStatusList files={[plain, korean]} />);
    const rows = screen.getByTestId('file-list').querySelectorAll('li');
    expect(rows[1]?.textContent).toContain('read as EUC-KR (CP949)');
    expect(rows[0]?.textContent).not.toContain('read as');
  });
});
