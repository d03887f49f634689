import { useState } from 'react';
import { formatWhen } from '../format';
import type { CollectionInfo } from '../types';

interface Props {
  collection: CollectionInfo;
  selected: boolean;
  busy: boolean;
  onSelect: () => void;
  onRescan: () => void;
  onRemove: () => void;
}

/** The label of the pseudo-collection of documents indexed outside any collection. */
export const LOOSE_NAME = 'Outside collections';

/** One collection: folders, counts, last indexed time, watch state, re-scan and remove (confirmed). */
export function CollectionCard({ collection: c, selected, busy, onSelect, onRescan, onRemove }: Props) {
  const [confirming, setConfirming] = useState(false);
  const loose = c.name === '';
  const paths = c.paths ?? [];
  return (
    <li
      className={`collection ${selected ? 'selected' : ''}`}
      data-testid="collection"
      data-name={c.name}
      data-documents={c.documents}
      data-failed={c.failed}
      data-pending={c.pending}
    >
      <button type="button" className="collection-head" onClick={onSelect} aria-pressed={selected}>
        <span className="collection-name">{loose ? LOOSE_NAME : c.name}</span>
        {!loose && (
          <span
            className={`watch-badge ${c.watched ? 'on' : 'off'}`}
            data-testid="watch-state"
            title={c.watched ? 'Changes in these folders are indexed as they happen' : 'Not watched; re-scan to pick up changes'}
          >
            {c.watched ? 'watching' : 'not watched'}
          </span>
        )}
      </button>
      {paths.map((p) => (
        <div key={p} className="path collection-path" title={p}>
          <bdi>{p}</bdi>
        </div>
      ))}
      <div className="collection-counts" data-testid="collection-counts">
        {c.documents} docs · {c.chunks} chunks
        {c.pending > 0 && <span> · {c.pending} pending</span>}
        {c.failed > 0 && <span className="count-failed"> · {c.failed} failed</span>}
      </div>
      <div className="muted collection-when" data-testid="collection-indexed-at">
        Last indexed {formatWhen(c.last_indexed_at)}
      </div>
      {!loose && !confirming && (
        <div className="collection-actions">
          <button type="button" className="small" onClick={onRescan} disabled={busy} data-testid="rescan-button">
            Re-scan
          </button>
          <button type="button" className="small" onClick={() => setConfirming(true)} disabled={busy} data-testid="remove-button">
            Remove…
          </button>
        </div>
      )}
      {confirming && (
        <div className="collection-confirm" role="alertdialog" aria-label={`Remove ${c.name}`}>
          <p>
            Remove <strong>{c.name}</strong> and its {c.documents} documents from the index? The files stay on disk.
          </p>
          <div className="button-row">
            <button type="button" className="small" onClick={() => setConfirming(false)} data-testid="remove-cancel">
              Cancel
            </button>
            <button
              type="button"
              className="small danger"
              onClick={() => {
                setConfirming(false);
                onRemove();
              }}
              data-testid="remove-confirm"
            >
              Remove
            </button>
          </div>
        </div>
      )}
    </li>
  );
}
