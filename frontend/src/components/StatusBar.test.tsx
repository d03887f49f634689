import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Status } from '../types';
import { StatusBar } from './StatusBar';

const status: Status = {
  loading: false,
  ready: true,
  embed_model: 'minilm',
  embed_error: '',
  llm_model: 'llama3.2',
  ollama_host: 'http://gpu-box:11434',
  ollama_error: '',
  documents: 3,
  chunks: 9,
  data_dir: '/data',
  index_hash: 'abc',
  remote: false,
  lexical_only: false,
};

describe('StatusBar', () => {
  afterEach(cleanup);

  it('marks a model server off this machine as remote', () => {
    const { rerender } = render(<StatusBar status={{ ...status, remote: true }} error={null} onModelDownloaded={() => {}} />);
    expect(screen.getByTestId('remote-badge').getAttribute('title')).toMatch(/not on this computer/);
    rerender(<StatusBar status={{ ...status, remote: false }} error={null} onModelDownloaded={() => {}} />);
    expect(screen.queryByTestId('remote-badge')).toBeNull();
  });

  it('tells calmly that search goes by words until the embedding model is downloaded', () => {
    const lexical = {
      ...status,
      embed_model: '',
      lexical_only: true,
      embed_error: 'Searching by words only: no embedding model is installed.',
    };
    render(<StatusBar status={lexical} error={null} onModelDownloaded={() => {}} />);
    const notice = screen.getByTestId('lexical-only-notice');
    expect(screen.getByRole('status').textContent).toBe(lexical.embed_error);
    expect(screen.queryByRole('alert')).toBeNull();
    expect(notice.querySelector('[data-testid="download-model-button"]')).toBeTruthy();
    expect(screen.getByTestId('status').textContent).toContain('none · search by words');
  });
});
