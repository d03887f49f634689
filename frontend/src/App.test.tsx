import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { App, LOADING_POLL_MS } from './App';
import { installFakeBridge, removeFakeBridge, type FakeBridge } from './testing/fixtures';
import type { CollectionInfo, FileStatus, Status } from './types';

const status: Status = {
  loading: false,
  ready: false,
  embed_model: 'all-MiniLM-L6-v2',
  embed_error: '',
  llm_model: 'llama3.2',
  ollama_host: 'http://127.0.0.1:11434',
  ollama_error: 'Ollama is not reachable at http://127.0.0.1:11434; start it with "ollama serve".',
  documents: 0,
  chunks: 0,
  data_dir: '/data',
  index_hash: '',
  remote: false,
  lexical_only: false,
};

const readyStatus: Status = { ...status, ready: true, ollama_error: '' };

const collection: CollectionInfo = {
  name: 'docs',
  paths: ['/docs'],
  documents: 2,
  chunks: 4,
  created_at: '2026-01-01T00:00:00Z',
  last_indexed_at: '2026-01-02T10:00:00Z',
  pending: 0,
  failed: 1,
  watched: true,
};

const files: FileStatus[] = [
  { path: '/docs/a.md', status: 'indexed', title: 'Welcome to Footnote', chunks: 2, indexed_at: '2026-01-02T10:00:00Z' },
  { path: '/docs/bad.pdf', status: 'failed', reason: 'The PDF is encrypted; remove the password and index it again.', chunks: 0 },
];

const sampleDoc = {
  doc_id: 'd1',
  title: 'Welcome to Footnote',
  path: '/samples/welcome.md',
  format: 'markdown',
  rev: '1',
  chunks: 5,
  indexed_at: '',
};

describe('App', () => {
  let bridge: FakeBridge;

  beforeEach(() => {
    bridge = installFakeBridge();
    bridge.app.Status.mockResolvedValue(status);
    bridge.app.Documents.mockResolvedValue([]);
    bridge.app.Collections.mockResolvedValue([]);
    bridge.app.CollectionFiles.mockResolvedValue([]);
    bridge.app.Settings.mockRejectedValue('no settings in this test');
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

  it('adds a folder to a collection with progress, then lists the collection and its files', async () => {
    bridge.app.Status.mockResolvedValue({ ...status, ollama_error: '' });
    let finish: (value: unknown) => void = () => {};
    bridge.app.AddPaths.mockReturnValue(new Promise((resolve) => (finish = resolve)));
    render(<App />);
    await waitFor(() => expect(bridge.listeners.get('ingest:progress')?.size).toBe(1));

    fireEvent.change(screen.getByTestId('folder-input'), { target: { value: '/docs' } });
    fireEvent.click(screen.getByTestId('add-button'));
    await waitFor(() => expect(bridge.app.AddPaths).toHaveBeenCalledWith('docs', ['/docs']));

    bridge.emit('ingest:progress', { files_done: 1, files_total: 3, chunks: 4, current: '/docs/a.md', done: false });
    expect((await screen.findByTestId('ingest-progress')).textContent).toContain('1 / 3 files');

    bridge.app.Collections.mockResolvedValue([collection]);
    bridge.app.CollectionFiles.mockResolvedValue(files);
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
    expect(summary.textContent).toContain('1 failed');
    expect((await screen.findByTestId('collection')).textContent).toContain('1 failed');
    expect(screen.getByTestId('file-list').textContent).toContain('The PDF is encrypted');
    expect(bridge.app.CollectionFiles).toHaveBeenLastCalledWith('docs');
    expect(bridge.app.Status).toHaveBeenCalledTimes(2);
  });

  it('shows a failing add instead of swallowing it', async () => {
    bridge.app.AddPaths.mockRejectedValue('/nope cannot be added: no such file or directory; check the path and try again.');
    render(<App />);
    fireEvent.change(screen.getByTestId('folder-input'), { target: { value: '/nope' } });
    fireEvent.click(screen.getByTestId('add-button'));
    await waitFor(() =>
      expect(screen.getAllByRole('alert').map((a) => a.textContent)).toContain(
        '/nope cannot be added: no such file or directory; check the path and try again.',
      ),
    );
  });

  it('follows an ingest the app started by itself and refreshes the lists when it is done', async () => {
    bridge.app.Status.mockResolvedValue(readyStatus);
    render(<App />);
    await waitFor(() => expect(bridge.listeners.get('ingest:progress')?.size).toBe(1));
    await waitFor(() => expect(bridge.app.Documents).toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId('ingest-progress')).toBeNull();

    act(() => {
      bridge.emit('ingest:progress', { files_done: 1, files_total: 2, chunks: 5, current: '/samples/b.md', done: false });
    });
    const bar = await screen.findByTestId('ingest-progress');
    expect(bar.textContent).toContain('1 / 2 files');
    expect(bar.textContent).toContain('/samples/b.md');
    expect(bridge.app.Ingest).not.toHaveBeenCalled();

    bridge.app.Status.mockResolvedValue({ ...readyStatus, documents: 1, chunks: 5 });
    bridge.app.Documents.mockResolvedValue([sampleDoc]);
    bridge.app.Collections.mockResolvedValue([collection]);
    bridge.app.CollectionFiles.mockResolvedValue(files);
    act(() => {
      bridge.emit('ingest:progress', { files_done: 2, files_total: 2, chunks: 9, current: '', done: true });
    });
    expect((await screen.findByTestId('file-list')).textContent).toContain('Welcome to Footnote');
    await waitFor(() => expect(screen.getByTestId('status').textContent).toContain('Documents1'));
    expect(screen.queryByTestId('ingest-progress')).toBeNull();
  });

  describe('while the embedding model loads', () => {
    beforeEach(() => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('says so and polls Status every second until loaded, then reloads the documents', async () => {
      const loading = { ...readyStatus, ready: false, loading: true };
      bridge.app.Status.mockResolvedValueOnce(loading).mockResolvedValueOnce(loading).mockResolvedValue(readyStatus);
      // Testing Library's async helpers wait on setTimeout, which is faked here;
      // flush promises through act instead.
      render(<App />);
      await act(() => vi.advanceTimersByTimeAsync(0));
      expect(screen.getByTestId('status-loading').textContent).toBe('Loading the embedding model…');
      expect(bridge.app.Status).toHaveBeenCalledTimes(1);
      expect(bridge.app.Documents).toHaveBeenCalledTimes(1);

      await act(() => vi.advanceTimersByTimeAsync(LOADING_POLL_MS - 1));
      expect(bridge.app.Status).toHaveBeenCalledTimes(1);
      await act(() => vi.advanceTimersByTimeAsync(1));
      expect(bridge.app.Status).toHaveBeenCalledTimes(2);
      expect(screen.getByTestId('status-loading')).toBeTruthy();

      bridge.app.Documents.mockResolvedValue([sampleDoc]);
      bridge.app.Collections.mockResolvedValue([collection]);
      bridge.app.CollectionFiles.mockResolvedValue(files);
      await act(() => vi.advanceTimersByTimeAsync(LOADING_POLL_MS));
      expect(bridge.app.Status).toHaveBeenCalledTimes(3);
      expect(screen.queryByTestId('status-loading')).toBeNull();
      expect(bridge.app.Documents).toHaveBeenCalledTimes(2);
      expect(screen.getByTestId('file-list').textContent).toContain('Welcome to Footnote');

      // Loaded: no more polling.
      await act(() => vi.advanceTimersByTimeAsync(5 * LOADING_POLL_MS));
      expect(bridge.app.Status).toHaveBeenCalledTimes(3);
    });
  });

  describe('when the embedding model is missing', () => {
    const missing = {
      ...readyStatus,
      ready: false,
      embed_error: 'The embedding model is not installed; click "Download model" or put it in the model folder.',
    };

    it('downloads it from the banner with progress, then refreshes Status', async () => {
      bridge.app.Status.mockResolvedValue(missing);
      let finish: (value: unknown) => void = () => {};
      bridge.app.DownloadModel.mockReturnValue(new Promise((resolve) => (finish = resolve)));
      render(<App />);
      expect((await screen.findByRole('alert')).textContent).toBe(missing.embed_error);
      await waitFor(() => expect(bridge.listeners.get('model:progress')?.size).toBe(1));

      const button = screen.getByTestId<HTMLButtonElement>('download-model-button');
      expect(button.textContent).toBe('Download model');
      fireEvent.click(button);
      await waitFor(() => expect(bridge.app.DownloadModel).toHaveBeenCalledTimes(1));
      expect(button.disabled).toBe(true);
      fireEvent.click(button);
      expect(bridge.app.DownloadModel).toHaveBeenCalledTimes(1);

      act(() => {
        bridge.emit('model:progress', {
          file: 'model.onnx',
          file_done: 1_500_000,
          file_total: 90_000_000,
          done: 1_500_000,
          total: 91_000_000,
        });
      });
      const progress = await screen.findByTestId('download-progress');
      expect(progress.textContent).toContain('1.5 MB / 91 MB');
      expect(progress.textContent).toContain('model.onnx');
      expect(screen.getByRole('alert').textContent).toBe(missing.embed_error);

      bridge.app.Status.mockResolvedValue(readyStatus);
      act(() => finish(undefined));
      await waitFor(() => expect(screen.queryByTestId('download-model-button')).toBeNull());
      expect(bridge.app.Status).toHaveBeenCalledTimes(2);
      expect(screen.queryByRole('alert')).toBeNull();
    });

    it('shows why a download failed and lets the user try again', async () => {
      bridge.app.Status.mockResolvedValue(missing);
      bridge.app.DownloadModel.mockRejectedValue(
        'The model download failed: huggingface.co is not reachable; check the connection and try again.',
      );
      render(<App />);
      fireEvent.click(await screen.findByTestId('download-model-button'));
      expect((await screen.findByTestId('download-error')).textContent).toBe(
        'The model download failed: huggingface.co is not reachable; check the connection and try again.',
      );
      expect(screen.getByTestId<HTMLButtonElement>('download-model-button').disabled).toBe(false);
      expect(screen.getByText(missing.embed_error)).toBeTruthy();
      expect(screen.queryByTestId('download-progress')).toBeNull();
      expect(bridge.app.Status).toHaveBeenCalledTimes(1);
    });
  });
});
