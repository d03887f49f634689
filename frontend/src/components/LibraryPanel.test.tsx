import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { installFakeBridge, removeFakeBridge, type FakeBridge } from '../testing/fixtures';
import type { CollectionInfo, FileStatus } from '../types';
import { LibraryPanel } from './LibraryPanel';

const notes: CollectionInfo = {
  name: 'notes',
  paths: ['/home/me/notes'],
  documents: 12,
  chunks: 80,
  created_at: '2026-01-01T00:00:00Z',
  last_indexed_at: '2026-03-04T09:30:00Z',
  pending: 2,
  failed: 1,
  watched: true,
};
const papers: CollectionInfo = { ...notes, name: 'papers', paths: ['/home/me/papers'], failed: 0, pending: 0, watched: false };
const summary = {
  files_seen: 12,
  files_indexed: 0,
  files_unchanged: 12,
  files_skipped: 0,
  files_failed: 0,
  chunks_embedded: 0,
  errors: [],
  duration_ms: 40,
};

describe('LibraryPanel', () => {
  let bridge: FakeBridge;
  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Collections.mockResolvedValue([notes, papers]);
    bridge.app.CollectionFiles.mockImplementation(async (name: string): Promise<FileStatus[]> => [
      { path: `/home/me/${name}/a.md`, status: 'indexed', title: `${name} A`, chunks: 3, indexed_at: notes.last_indexed_at ?? '' },
      { path: `/home/me/${name}/img.bin`, status: 'skipped', reason: 'binary file', chunks: 0 },
    ]);
  });
  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('lists collections with counts, watch state and last indexed time, and switches the file list', async () => {
    render(<LibraryPanel progress={null} version={0} onIngested={() => {}} />);
    const cards = await screen.findAllByTestId('collection');
    expect(cards).toHaveLength(2);
    expect(cards[0]?.textContent).toContain('12 docs · 80 chunks · 2 pending · 1 failed');
    expect(cards[0]?.querySelector('[data-testid="watch-state"]')?.textContent).toBe('watching');
    expect(cards[1]?.querySelector('[data-testid="watch-state"]')?.textContent).toBe('not watched');
    expect(cards[0]?.querySelector('[data-testid="collection-indexed-at"]')?.textContent).toMatch(/Last indexed .*2026/);
    expect((await screen.findByTestId('file-list')).textContent).toContain('notes A');
    expect(screen.getByTestId('file-list').textContent).toContain('binary file');

    fireEvent.click(cards[1]!.querySelector('button.collection-head')!);
    await waitFor(() => expect(screen.getByTestId('file-list').textContent).toContain('papers A'));
  });

  it('re-scans a collection and removes one only after confirmation', async () => {
    const onIngested = vi.fn();
    bridge.app.Rescan.mockResolvedValue(summary);
    bridge.app.RemoveCollection.mockResolvedValue(undefined);
    render(<LibraryPanel progress={null} version={0} onIngested={onIngested} />);
    const [first] = await screen.findAllByTestId('collection');

    fireEvent.click(first!.querySelector('[data-testid="rescan-button"]')!);
    await waitFor(() => expect(bridge.app.Rescan).toHaveBeenCalledWith('notes'));
    expect((await screen.findByTestId('ingest-summary')).textContent).toContain('12 unchanged');
    expect(onIngested).toHaveBeenCalledTimes(1);

    fireEvent.click(screen.getAllByTestId('remove-button')[0]!);
    expect(screen.getByRole('alertdialog').textContent).toContain('Remove notes and its 12 documents');
    fireEvent.click(screen.getByTestId('remove-cancel'));
    expect(bridge.app.RemoveCollection).not.toHaveBeenCalled();

    bridge.app.Collections.mockResolvedValue([papers]);
    fireEvent.click(screen.getAllByTestId('remove-button')[0]!);
    fireEvent.click(screen.getByTestId('remove-confirm'));
    await waitFor(() => expect(bridge.app.RemoveCollection).toHaveBeenCalledWith('notes'));
    await waitFor(() => expect(screen.getAllByTestId('collection')).toHaveLength(1));
    expect(screen.getByTestId('file-list').textContent).toContain('papers A');
  });

  it('treats a file kept out of evidence as a document from its row, and reloads the list', async () => {
    let overridden = false;
    bridge.app.CollectionFiles.mockImplementation(async (): Promise<FileStatus[]> => [
      {
        path: '/home/me/notes/chat_transcript.txt',
        status: 'indexed',
        chunks: 1,
        content_check: { source: 'model', reason: 'looks like a chat transcript (assistant: and user: turns)', overridden },
      },
    ]);
    bridge.app.TreatAsDocument.mockImplementation(async (_path: string, on: boolean) => {
      overridden = on;
      return { ...summary, files_seen: 1, files_indexed: 1, files_unchanged: 0 };
    });
    render(<LibraryPanel progress={null} version={0} onIngested={() => {}} />);
    expect((await screen.findByTestId('file-list')).textContent).toContain('kept out of evidence: looks like a chat transcript');
    fireEvent.click(screen.getByTestId('treat-as-document'));
    await waitFor(() => expect(bridge.app.TreatAsDocument).toHaveBeenCalledWith('/home/me/notes/chat_transcript.txt', true));
    await waitFor(() => expect(screen.getByTestId('treat-as-document').textContent).toBe('Keep out of evidence'));
    expect(screen.getByTestId('file-list').textContent).toContain('treated as a document');
  });

  it('adds chosen files to a named collection', async () => {
    bridge.app.PickFiles.mockResolvedValue(['/x/one.md', '/x/two.pdf']);
    bridge.app.AddPaths.mockResolvedValue(summary);
    render(<LibraryPanel progress={null} version={0} onIngested={() => {}} />);
    await screen.findAllByTestId('collection');
    fireEvent.click(screen.getByTestId('browse-files-button'));
    await waitFor(() => expect((screen.getByTestId('folder-input') as HTMLInputElement).value).toBe('2 files'));
    fireEvent.change(screen.getByTestId('collection-name-input'), { target: { value: 'picked' } });
    fireEvent.click(screen.getByTestId('add-button'));
    await waitFor(() => expect(bridge.app.AddPaths).toHaveBeenCalledWith('picked', ['/x/one.md', '/x/two.pdf']));
  });
});
