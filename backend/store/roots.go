package store

import (
	"context"
	"fmt"
)

// CollectionRoot is one folder or file a collection tracks.
type CollectionRoot struct {
	Collection string `json:"collection"`
	Path       string `json:"path"`
}

// CollectionRoots lists the folders and files of every collection, by path,
// without the document counts Collections adds (so it is cheap enough to
// call per queued deletion).
func (s *Store) CollectionRoots(ctx context.Context) ([]CollectionRoot, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT collection, path FROM collection_paths ORDER BY path, collection`)
	if err != nil {
		return nil, fmt.Errorf("list collection folders: %w", err)
	}
	defer rows.Close()
	var out []CollectionRoot
	for rows.Next() {
		var r CollectionRoot
		if err := rows.Scan(&r.Collection, &r.Path); err != nil {
			return nil, fmt.Errorf("list collection folders: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list collection folders: %w", err)
	}
	return out, nil
}

// RemoveCollectionPath stops tracking path as a root of the collection; its
// documents stay (the caller decides what happens to them).
func (s *Store) RemoveCollectionPath(ctx context.Context, name, path string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM collection_paths WHERE collection = ? AND path = ?`, name, path); err != nil {
		return fmt.Errorf("remove %s from collection %q: %w", path, name, s.Explain(err))
	}
	return nil
}
