package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/footnote-app/footnote/backend/store"
)

// An index written with another analyzer (the tokenizer, stemming and stop
// words of the keyword index) cannot be searched as this version searches:
// passages would be found, and answers generated, that the chain-boundary
// check (analyzer_mismatch) then rejects. A changed analyzer changes the
// settings identity, so the index is rebuilt at start; while that runs the
// old index serves as it was written. When no rebuild is under way — it
// failed, or the index was copied from another version — opening, search
// and doctor say so at once, before anything is generated.

// ErrAnalyzerMismatch matches the error of an index written with another
// analyzer and not being rebuilt.
var ErrAnalyzerMismatch = errors.New("analyzer_mismatch")

// checkAnalyzer returns ErrAnalyzerMismatch, with what to do, when the live
// index was written with another analyzer and no rebuild is under way.
func (e *Engine) checkAnalyzer(ctx context.Context, st *store.Store) error {
	if st == nil {
		return nil
	}
	written, found, err := st.Meta(ctx, "analyzer")
	if err != nil || !found || written == store.Analyzer {
		return err
	}
	e.lib.mu.Lock()
	rebuilding, rebuildErr := e.lib.rebuild.active, e.lib.rebuild.err
	e.lib.mu.Unlock()
	if rebuilding {
		return nil
	}
	why := ""
	if rebuildErr != nil {
		why = fmt.Sprintf(" (its rebuild failed: %v)", rebuildErr)
	}
	return fmt.Errorf("%w: the index was written with analyzer %q but this version of Footnote searches with %q%s; "+
		"restart Footnote to rebuild the index, or delete %s to index your folders again",
		ErrAnalyzerMismatch, written, store.Analyzer, why, e.cfg.DBPath())
}
