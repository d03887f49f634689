import type { DocumentInfo } from '../types';

/** The indexed documents with their chunk counts. */
export function DocumentList({ documents }: { documents: DocumentInfo[] }) {
  if (documents.length === 0) {
    return <p className="muted">No documents indexed yet.</p>;
  }
  return (
    <ul className="document-list" data-testid="document-list">
      {documents.map((d) => (
        <li key={d.doc_id} title={d.path}>
          <span className="doc-title">{d.title || d.path}</span>
          <span className="doc-chunks">{d.chunks}</span>
        </li>
      ))}
    </ul>
  );
}
