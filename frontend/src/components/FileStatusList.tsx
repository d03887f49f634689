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

/** The Library's line for a file kept out of evidence by its content, or null. */
export function contentCheckLine(f: FileStatus): string | null {
  const c = f.content_check;
  if (!c) return null;
  return c.overridden
    ? `treated as a document (it ${c.reason})`
    : `kept out of evidence: ${c.reason}`;
}

/** The Library's note on pages read by OCR, or null. */
export function ocrLine(f: FileStatus): string | null {
  const pages = f.ocr_pages ?? [];
  if (pages.length === 0) return null;
  return `${pages.length === 1 ? 'page' : 'pages'} ${pages.join(', ')} read by OCR`;
}

function detail(f: FileStatus): string {
  const check = contentCheckLine(f);
  if (check) return check;
  if (f.status === 'indexed') {
    const when = f.indexed_at ? `indexed ${formatWhen(f.indexed_at)}` : 'indexed';
    const ocr = ocrLine(f);
    const read = f.charset ? ` · read as ${f.charset}` : '';
    return `${f.chunks} chunk${f.chunks === 1 ? '' : 's'} · ${when}${read}${ocr ? ` · ${ocr}` : ''}`;
  }
  return f.reason ?? f.status;
}

interface Props {
  files: FileStatus[];
  /** Treat a file kept out of evidence as a document (on) or keep it out again; absent: no button. */
  onTreatAsDocument?: (path: string, on: boolean) => void;
  /** Try again a file ingest set aside (it crashed the reader or took too long); absent: no button. */
  onRetry?: (path: string) => void;
  /** While true, the override buttons are disabled. */
  busy?: boolean;
}

/** Every file of a collection with its state, filterable, windowed for thousands of files. */
export function FileStatusList({ files, onTreatAsDocument, onRetry, busy = false }: Props) {
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
                {(f.ocr_pages ?? []).length > 0 && (
                  <span className="file-badge badge-ocr" data-testid="ocr-badge" title={ocrLine(f) ?? ''}>
                    OCR
                  </span>
                )}
                {f.content_check && onTreatAsDocument && (
                  <button
                    type="button"
                    className="file-override"
                    data-testid="treat-as-document"
                    disabled={busy}
                    aria-pressed={f.content_check.overridden}
                    title={
                      f.content_check.overridden
                        ? 'Keep this file out of evidence again'
                        : 'Use this file as evidence: it is a document, not a chat or an answer'
                    }
                    onClick={() => onTreatAsDocument(f.path, !f.content_check?.overridden)}
                  >
                    {f.content_check.overridden ? 'Keep out of evidence' : 'Treat as a document'}
                  </button>
                )}
                {f.set_aside && onRetry && (
                  <button
                    type="button"
                    className="file-override"
                    data-testid="retry-file"
                    disabled={busy}
                    title="Footnote skips this file until it changes; read it again now"
                    onClick={() => onRetry(f.path)}
                  >
                    Try again
                  </button>
                )}
              </span>
              <span
                className={`file-detail${f.content_check && !f.content_check.overridden ? ' file-kept-out' : ''}`}
                data-testid="file-detail"
              >
                {detail(f)}
              </span>
            </div>
          )}
        />
      )}
    </div>
  );
}
