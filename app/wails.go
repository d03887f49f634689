package app

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// wailsEmitter emits through Wails; only built with the context Wails gave
// the app at startup.
type wailsEmitter struct{ ctx context.Context }

func (w wailsEmitter) Emit(event string, payload any) { runtime.EventsEmit(w.ctx, event, payload) }

type wailsDialogs struct{}

func (wailsDialogs) PickFolder(ctx context.Context, title string) (string, error) {
	return runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{Title: title})
}

func (wailsDialogs) PickFiles(ctx context.Context, title string) ([]string, error) {
	return runtime.OpenMultipleFilesDialog(ctx, runtime.OpenDialogOptions{Title: title, Filters: []runtime.FileFilter{{
		DisplayName: "Documents", Pattern: "*.md;*.markdown;*.txt;*.html;*.htm;*.xhtml;*.pdf;*.docx;*.epub",
	}}})
}
