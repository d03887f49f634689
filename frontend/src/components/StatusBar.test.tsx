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
};

describe('StatusBar', () => {
  afterEach(cleanup);

  it('marks a model server off this machine as remote', () => {
    const { rerender } = render(<StatusBar status={{ ...status, remote: true }} error={null} onModelDownloaded={() => {}} />);
    expect(screen.getByTestId('remote-badge').getAttribute('title')).toMatch(/not on this computer/);
    rerender(<StatusBar status={{ ...status, remote: false }} error={null} onModelDownloaded={() => {}} />);
    expect(screen.queryByTestId('remote-badge')).toBeNull();
  });
});
