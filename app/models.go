package app

// The Ollama model picker: installed models and pulling one.

import (
	"context"

	"github.com/footnote-app/footnote/backend/engine"
)

// EventModelPull reports PullModel progress.
const EventModelPull = "model:pull"

type (
	// Model is one model installed in Ollama.
	Model = engine.Model
	// PullProgress is the payload of model:pull events.
	PullProgress = engine.PullProgress
)

// Models lists the models installed in Ollama for the model picker.
func (a *App) Models() ([]engine.Model, error) {
	return a.engine.Models(context.Background())
}

// PullModel downloads a model into Ollama, emitting model:pull events; it
// returns when the pull finished.
func (a *App) PullModel(name string) error {
	return a.engine.PullModel(context.Background(), name, func(p engine.PullProgress) {
		a.emit(EventModelPull, p)
	})
}

// DownloadModel fetches the default embedding model into the configured
// folder, emitting model:progress, then loads it.
func (a *App) DownloadModel() error {
	err := a.engine.DownloadEmbedModel(context.Background(), func(p engine.ModelProgress) {
		a.emit(EventModelProgress, p)
	})
	if err != nil {
		return err
	}
	go returnLoadMemory(a.engine.Start())
	a.indexStartupFolders()
	return nil
}
