package engine

import (
	"github.com/footnote-app/footnote/backend/search"
)

// SetRetrievalMode sets the retrieval mode (hybrid, lexical or vector) used
// by questions and by searches that name none.
func (e *Engine) SetRetrievalMode(mode string) error {
	mode, err := search.ParseMode(mode)
	if err != nil {
		return err
	}
	e.prov.mu.Lock()
	e.prov.mode = mode
	e.prov.mu.Unlock()
	return nil
}

// RetrievalMode is the mode SetRetrievalMode set (hybrid by default).
func (e *Engine) RetrievalMode() string {
	e.prov.mu.Lock()
	defer e.prov.mu.Unlock()
	if e.prov.mode == "" {
		return search.ModeHybrid
	}
	return e.prov.mode
}
