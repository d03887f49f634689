import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { App } from './App';
import { installFakeBridge, removeFakeBridge, type FakeBridge } from './testing/fixtures';
import type { Status } from './types';

const status: Status = {
  ready: false,
  embed_model: 'all-MiniLM-L6-v2',
  embed_error: '',
  llm_model: 'llama3.2',
  ollama_host: 'http://127.0.0.1:11434',
  ollama_error: 'Ollama is not reachable at http://127.0.0.1:11434; start it with "ollama serve".',
  documents: 0,
  chunks: 0,
  data_dir: '/data',
};

describe('App', () => {
  let bridge: FakeBridge;

  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Status.mockResolvedValue(status);
    bridge.app.Documents.mockResolvedValue([]);
  });

  afterEach(() => {
    cleanup();
    removeFakeBridge();
  });

  it('shows status facts and backend problems as a banner', async () => {
    render(<App />);
    expect((await screen.findByRole('alert')).textContent).toBe(status.ollama_error);
    expect(screen.getByTestId('status').textContent).toContain('llama3.2 @ http://127.0.0.1:11434');
  });

  it('indexes a folder with progress, shows the summary and refreshes the lists', async () => {
    bridge.app.Status.mockResolvedValue({ ...status, ollama_error: '' });
    let finish: (value: unknown) => void = () => {};
    bridge.app.Ingest.mockReturnValue(new Promise((resolve) => (finish = resolve)));
    render(<App />);
    await waitFor(() => expect(bridge.listeners.get('ingest:progress')?.size).toBe(1));

    fireEvent.change(screen.getByTestId('folder-input'), { target: { value: '/docs' } });
    fireEvent.click(screen.getByTestId('index-button'));
    await waitFor(() => expect(bridge.app.Ingest).toHaveBeenCalledWith(['/docs']));

    bridge.emit('ingest:progress', { files_done: 1, files_total: 3, chunks: 4, current: '/docs/a.md', done: false });
    expect((await screen.findByTestId('ingest-progress')).textContent).toContain('1 / 3 files');

    bridge.app.Documents.mockResolvedValue([
      { doc_id: 'd1', title: 'Install', path: '/docs/a.md', format: 'markdown', rev: '1', chunks: 4, indexed_at: '' },
    ]);
    finish({
      files_seen: 3,
      files_indexed: 2,
      files_unchanged: 0,
      files_skipped: 0,
      files_failed: 1,
      chunks_embedded: 4,
      errors: [{ path: '/docs/bad.pdf', error: 'The PDF is encrypted; remove the password and index it again.' }],
      duration_ms: 1500,
    });
    const summary = await screen.findByTestId('ingest-summary');
    expect(summary.textContent).toContain('2 indexed');
    expect(summary.textContent).toContain('The PDF is encrypted');
    expect((await screen.findByTestId('document-list')).textContent).toContain('Install');
    expect(bridge.app.Status).toHaveBeenCalledTimes(2);
  });

  it('shows a failing ingest instead of swallowing it', async () => {
    bridge.app.Ingest.mockRejectedValue('The folder /nope does not exist; choose an existing folder.');
    render(<App />);
    fireEvent.change(screen.getByTestId('folder-input'), { target: { value: '/nope' } });
    fireEvent.click(screen.getByTestId('index-button'));
    await waitFor(() =>
      expect(screen.getAllByRole('alert').map((a) => a.textContent)).toContain(
        'The folder /nope does not exist; choose an existing folder.',
      ),
    );
  });
});
