import { useState, type FormEvent } from 'react';
import { api, errorMessage } from '../api';
import { baseName } from './FileStatusList';

interface Props {
  busy: boolean;
  /** Adds the paths to the named collection; resolves when indexing ended. */
  onAdd: (collection: string, paths: string[]) => Promise<void>;
  onError: (message: string) => void;
}

/** Add a folder (native dialog or a typed path) or files to a collection. */
export function AddToLibrary({ busy, onAdd, onError }: Props) {
  const [paths, setPaths] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const [name, setName] = useState('');

  const chosen = paths.length > 0 ? paths : typed.trim() ? [typed.trim()] : [];
  const suggested = chosen.length === 1 ? baseName(chosen[0] ?? '') : chosen.length > 1 ? 'documents' : '';

  const pick = async (files: boolean) => {
    try {
      const picked = files ? await api.pickFiles() : [await api.pickFolder()].filter(Boolean);
      if (picked.length === 0) return;
      setPaths(picked);
      setTyped(picked.length === 1 ? (picked[0] ?? '') : `${picked.length} files`);
    } catch (err) {
      onError(errorMessage(err));
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const collection = name.trim() || suggested;
    if (chosen.length === 0 || !collection || busy) return;
    await onAdd(collection, chosen);
    setPaths([]);
    setTyped('');
    setName('');
  };

  return (
    <form className="ingest-form" onSubmit={submit} aria-label="Add to the library">
      <div className="add-head">
        <label htmlFor="folder-input">Add to the library</label>
        <button type="button" className="small" onClick={() => void pick(false)} disabled={busy} data-testid="browse-button">
          Folder…
        </button>
        <button type="button" className="small" onClick={() => void pick(true)} disabled={busy} data-testid="browse-files-button">
          Files…
        </button>
      </div>
      <input
        id="folder-input"
        data-testid="folder-input"
        type="text"
        value={typed}
        placeholder="/path/to/your/documents"
        spellCheck={false}
        autoComplete="off"
        onChange={(e) => {
          setPaths([]);
          setTyped(e.target.value);
        }}
      />
      <div className="inline add-row">
        <input
          aria-label="Collection name"
          data-testid="collection-name-input"
          type="text"
          value={name}
          placeholder={suggested ? `Collection: ${suggested}` : 'Collection name'}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" className="primary" disabled={busy || chosen.length === 0} data-testid="add-button">
          {busy ? 'Indexing…' : 'Add'}
        </button>
      </div>
    </form>
  );
}
