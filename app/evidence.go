package app

import (
	"context"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/store"
)

// ContentCheck says that an indexed file's content looks like a chat or an
// answer: kept out of evidence, unless the user treats it as a document.
type ContentCheck struct {
	Source     string `json:"source"` // what it looks like: model or user
	Reason     string `json:"reason"`
	Overridden bool   `json:"overridden"` // treated as a document: its text is evidence
}

// markContentChecks adds to the indexed files the ones kept out of evidence
// by their content.
func (a *App) markContentChecks(ctx context.Context, files map[string]*FileStatus) error {
	kept, err := a.engine.KeptOutOfEvidence(ctx)
	if err != nil {
		return err
	}
	for _, k := range kept {
		if f, ok := files[k.Path]; ok && f.DocID == k.DocID {
			f.ContentCheck = contentCheck(k)
		}
	}
	return nil
}

func contentCheck(k store.DocumentSource) *ContentCheck {
	return &ContentCheck{Source: k.Source, Reason: k.Reason, Overridden: k.Overridden}
}

// TreatAsDocument uses (on) or stops using (off) an indexed file kept out
// of evidence as a chat or an answer as evidence anyway; the file is
// indexed again at once and the choice survives rescans and rebuilds.
func (a *App) TreatAsDocument(path string, on bool) (engine.Summary, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return a.engine.TreatAsDocument(ctx, path, on)
}
