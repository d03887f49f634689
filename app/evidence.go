package app

import (
	"context"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
)

// TreatAsDocument uses (on) or stops using (off) an indexed file kept out
// of evidence as a chat or an answer as evidence anyway; the file is
// indexed again at once and the choice survives rescans and rebuilds.
func (a *App) TreatAsDocument(path string, on bool) (engine.Summary, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return a.engine.TreatAsDocument(ctx, path, on)
}

// RetryFile indexes again, now, a file ingest set aside because reading it
// crashed Footnote or took too long (FileStatus.SetAside); it may be set
// aside again.
func (a *App) RetryFile(path string) (engine.Summary, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	return a.engine.Retry(ctx, path, nil)
}
