import { useMemo, useState } from 'react';
import { formatWhen } from '../format';
import type { FileState, FileStatus } from '../types';
import { WindowedList } from './WindowedList';

export const FILE_ROW_HEIGHT = 40;

const FILTERS: { key: FileState | 'all'; label: string }[] = [
  { key: 'all', label: 'All' },
  { key: 'indexed', label: 'Indexed' },
  { key: 'pending', label: 'Pending' },
  { key: 'failed', label: 'Failed' },
  { key: 'skipped', label: 'Skipped' },
];

/** The last part of a path, for a row's headline. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts[parts.length - 1] ?? path;
}

function detail(f: FileStatus): string {
  if (f.status === 'indexed') {
    const when = f.indexed_at ? `indexed ${formatWhen(f.indexed_at)}` : 'indexed';
    return `${f.chunks} chunk${f.chunks === 1 ? '' : 's'} · ${when}`;
  }
  return f.reason ?? f.status;
}

/** Every file of a collection with its state, filterable, windowed for thousands of files. */
export function FileStatusList({ files }: { files: FileStatus[] }) {
  const [filter, setFilter] = useState<FileState | 'all'>('all');
  const counts = useMemo(() => {
    const c: Record<string, number> = { all: files.length, indexed: 0, pending: 0, failed: 0, skipped: 0 };
    for (const f of files) c[f.status] = (c[f.status] ?? 0) + 1;
    return c;
  }, [files]);
  const shown = useMemo(() => (filter === 'all' ? files : files.filter((f) => f.status === filter)), [files, filter]);

  return (
    <div className="file-status">
      <div className="file-filters" role="group" aria-label="Show files">
        {FILTERS.filter((f) => f.key === 'all' || (counts[f.key] ?? 0) > 0).map((f) => (
          <button
            key={f.key}
            type="button"
            className={`filter ${filter === f.key ? 'active' : ''}`}
            aria-pressed={filter === f.key}
            data-testid={`file-filter-${f.key}`}
            onClick={() => setFilter(f.key)}
          >
            {f.label} {counts[f.key] ?? 0}
          </button>
        ))}
      </div>
      {shown.length === 0 ? (
        <p className="muted">{files.length === 0 ? 'No files in this collection yet.' : 'No files in this state.'}</p>
      ) : (
        <WindowedList
          items={shown}
          rowHeight={FILE_ROW_HEIGHT}
          rowKey={(f) => f.path}
          rowTitle={(f) => `${f.path}\n${f.status}: ${detail(f)}`}
          testId="file-list"
          label="Files"
          renderRow={(f) => (
            <div className={`file-row file-${f.status}`} data-status={f.status} data-path={f.path}>
              <span className="file-line">
                <span className={`file-badge badge-${f.status}`}>{f.status}</span>
                <span className="file-name">{f.title || baseName(f.path)}</span>
              </span>
              <span className="file-detail" data-testid="file-detail">
                {detail(f)}
              </span>
            </div>
          )}
        />
      )}
    </div>
  );
}
