package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/ingest"
	"github.com/footnote-app/footnote/backend/store"
)

// Every folder or file Footnote indexes is tracked as a root: of a named
// collection, or — when indexed outside any collection, as `footnote ingest`
// does — of the implicit collection named "" (the app lists it as "Outside
// collections"). Re-ingests, rescans, rebuilds and the folder watch walk the
// roots again instead of trusting stored paths, so deletions and renames are
// noticed and the scanner's rules (links leading out of the folder, file
// types, sizes) apply every time.

// implicitCollection holds the roots indexed outside any named collection.
const implicitCollection = ""

// underRoot reports whether path is root or lies inside it.
func underRoot(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}

// closestRoot returns the deepest root that holds path.
func closestRoot(roots []store.CollectionRoot, path string) (store.CollectionRoot, bool) {
	best, found := store.CollectionRoot{}, false
	for _, r := range roots {
		if underRoot(path, r.Path) && (!found || len(r.Path) > len(best.Path)) {
			best, found = r, true
		}
	}
	return best, found
}

// trackIngested records paths (absolute and clean) as roots of the implicit
// collection, unless a root of any collection already covers them. Implicit
// roots inside a new one are dropped: the new root covers them.
func (e *Engine) trackIngested(ctx context.Context, st *store.Store, paths []string) error {
	for _, p := range paths {
		roots, err := st.CollectionRoots(ctx)
		if err != nil {
			return err
		}
		if _, covered := closestRoot(roots, p); covered {
			continue
		}
		if err := e.dropImplicitRootsUnder(ctx, st, p); err != nil {
			return err
		}
		if err := st.AddCollectionPath(ctx, implicitCollection, p); err != nil {
			return err
		}
		e.watchRoot(p, implicitCollection)
	}
	return nil
}

// dropImplicitRootsUnder stops tracking implicit roots at or inside path,
// which a root being added covers; their documents stay and are rescanned
// under the new root.
func (e *Engine) dropImplicitRootsUnder(ctx context.Context, st *store.Store, path string) error {
	roots, err := st.CollectionRoots(ctx)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if r.Collection == implicitCollection && underRoot(r.Path, path) {
			if err := st.RemoveCollectionPath(ctx, implicitCollection, r.Path); err != nil {
				return err
			}
			e.unwatchRoot(r.Path)
		}
	}
	return nil
}

// scanTracked scans path under the rules of the root it lies in, so a link
// leading out of that root's folder is skipped as a scan of the root would
// skip it. A path outside every root is scanned on its own.
func (e *Engine) scanTracked(ctx context.Context, st *store.Store, path string) ([]ingest.File, []ingest.Skip, error) {
	roots, err := st.CollectionRoots(ctx)
	if err != nil {
		return nil, nil, err
	}
	if r, ok := closestRoot(roots, path); ok {
		return ingest.ScanWithin(r.Path, []string{path}, e.ingestOptions())
	}
	return ingest.Scan([]string{path}, e.ingestOptions())
}

// stillIndexable reports whether path exists and a scan under its root's
// rules would still index it.
func (e *Engine) stillIndexable(ctx context.Context, st *store.Store, path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	files, _, err := e.scanTracked(ctx, st, path)
	return err == nil && len(files) == 1
}

// enqueueUntracked queues into `to` a re-check of each document of `from`
// that none of the scanned roots holds: documents indexed before ingested
// folders were tracked, or under a root that could not be scanned. Each is
// indexed again if it changed and removed if its file is gone.
func (e *Engine) enqueueUntracked(ctx context.Context, from, to *store.Store, scanned []string, sum *Summary) error {
	docs, err := from.DocumentsUnder(ctx, "")
	if err != nil {
		return err
	}
	var items []store.QueueItem
	for _, d := range docs {
		covered := false
		for _, r := range scanned {
			if underRoot(d.Path, r) {
				covered = true
				break
			}
		}
		if covered {
			continue
		}
		items = append(items, store.QueueItem{Path: d.Path, Collection: d.Collection, Op: store.OpIndex})
		if _, err := os.Stat(d.Path); err == nil {
			sum.FilesSeen++
		}
	}
	return to.Enqueue(ctx, items)
}
