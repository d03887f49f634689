package app

// The source viewer: an indexed document's stored text, and opening its
// original file.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/engine"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// DocumentView is an indexed document as the source viewer shows it.
type DocumentView = engine.DocumentView

// Documents lists indexed documents.
func (a *App) Documents() ([]engine.DocumentInfo, error) {
	return a.engine.Documents(context.Background())
}

// OpenDocument returns an indexed document's stored text for the source
// viewer. Only documents in the index can be opened.
func (a *App) OpenDocument(docID string) (DocumentView, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	doc, err := a.engine.Document(ctx, docID)
	if errors.Is(err, engine.ErrNotFound) {
		return DocumentView{}, userError("this document is no longer in the index; re-index its folder and ask again", err)
	}
	return doc, err
}

// openURL hands a URL to the system handler; tests replace it. Wails'
// runtime kills the process when given a context it did not create, so it
// is only called with the startup context.
var openURL = func(ctx context.Context, u string) { runtime.BrowserOpenURL(ctx, u) }

// OpenOriginal opens an indexed document's file with the system handler.
// It takes a document id, never a path, so the UI can only open files the
// index already holds.
func (a *App) OpenOriginal(docID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	doc, err := a.engine.Document(ctx, docID)
	if errors.Is(err, engine.ErrNotFound) {
		return userError("this document is no longer in the index; re-index its folder first", err)
	}
	if err != nil {
		return err
	}
	if _, err := os.Stat(doc.Path); err != nil {
		return fmt.Errorf("the original file %s cannot be opened (%w); it may have been moved or deleted", doc.Path, err)
	}
	if a.ctx == nil {
		return errors.New("opening files is only available in the desktop app")
	}
	openURL(a.ctx, fileURL(doc.Path))
	return nil
}

// fileURL turns an absolute path into a file:// URL (Windows drive paths too).
func fileURL(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
