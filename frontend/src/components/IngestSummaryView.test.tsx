import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { IngestSummary } from '../types';
import { IngestSummaryView } from './IngestSummaryView';

const base: IngestSummary = {
  files_seen: 3,
  files_indexed: 3,
  files_unchanged: 0,
  files_skipped: 0,
  files_failed: 0,
  chunks_embedded: 5,
  errors: [],
  duration_ms: 40,
  files_deleted: 0,
  chunks_reused: 0,
  skipped: null,
  files_kept_out: 0,
};

describe('IngestSummaryView', () => {
  afterEach(cleanup);

  it('says how many indexed files were kept out of evidence as chats or answers', () => {
    render(<IngestSummaryView summary={{ ...base, files_kept_out: 2 }} />);
    expect(screen.getByTestId('kept-out-count').textContent).toContain('2 look like a chat or an answer');
  });

  it('says nothing about it when none was', () => {
    render(<IngestSummaryView summary={{ ...base, files_kept_out: 0 }} />);
    expect(screen.queryByTestId('kept-out-count')).toBeNull();
  });

  it('lists the notes on indexed files, such as the charset a file was decoded from', () => {
    const note = 'not valid UTF-8; detected and decoded as EUC-KR (CP949)';
    render(<IngestSummaryView summary={{ ...base, notes: [{ path: '/docs/ko/seoul.txt', error: note }] }} />);
    expect(screen.getByTestId('ingest-notes').textContent).toBe('seoul.txt: ' + note);
  });

  it('shows no notes list when there are none', () => {
    render(<IngestSummaryView summary={base} />);
    expect(screen.queryByTestId('ingest-notes')).toBeNull();
  });
});
