package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/version"
)

// Check is one line of `footnote doctor`.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
	// Warn marks a check that passes with something missing (no
	// embedding model: search is lexical); it does not fail doctor.
	Warn bool `json:"warn,omitempty"`

	err error // the failure, for CheckLLM's sentence
}

// Doctor checks everything Footnote needs and says how to fix what is wrong.
func (e *Engine) Doctor(ctx context.Context) []Check {
	// The build first, so a pasted doctor report says which one it checked.
	checks := []Check{{Name: "Footnote", OK: true, Detail: version.Describe()}}
	checks = append(checks, e.checkDataDir())
	loadErr := e.Ready(ctx)
	if errors.Is(loadErr, ErrAnalyzerMismatch) {
		checks = append(checks, Check{Name: "index (SQLite, FTS5, sqlite-vec)", Detail: loadErr.Error(),
			Fix: "restart Footnote so it rebuilds the index"})
	} else if loadErr != nil {
		checks = append(checks, Check{Name: "embedding model", Detail: loadErr.Error(),
			Fix: fmt.Sprintf("set %s to a model folder (model.onnx + tokenizer.json) or run `footnote model download`", config.EnvEmbedModel)})
	} else if missing := e.ModelMissing(); missing != nil {
		checks = append(checks, Check{Name: "embedding model", OK: true, Warn: true,
			Detail: fmt.Sprintf("not loaded (%v); search and answers use words only until it is installed", missing),
			Fix:    fmt.Sprintf("run `footnote model download` or set %s to a model folder (model.onnx + tokenizer.json)", config.EnvEmbedModel)})
		checks = append(checks, e.checkIndex(ctx))
		checks = append(checks, e.checkReaderCrashes(ctx)...)
	} else {
		info := e.embedder.Info()
		detail := fmt.Sprintf("%s (%d-d, max %d tokens)", info.Name(), info.Dim, info.MaxTokens)
		inner := e.embedder
		if m, ok := inner.(*queryMemo); ok {
			inner = m.Embedder
		}
		if r, ok := inner.(interface{ Engine() (string, string) }); ok {
			// Which engine runs the model, and why not the faster one.
			name, why := r.Engine()
			switch name {
			case embed.EngineEncoder:
				name = "the built-in encoder"
			case embed.EngineGoBackend:
				name = "the Go ONNX backend"
			}
			detail += ", run by " + name
			if why != "" {
				detail += " (" + why + ")"
			}
		}
		if active, done, total, _ := e.VectorFill(); active {
			detail += fmt.Sprintf("; adding vectors to chunks indexed without it: %d of %d", done, total)
		}
		checks = append(checks, Check{Name: "embedding model", OK: true, Detail: detail})
		checks = append(checks, e.checkIndex(ctx))
		checks = append(checks, e.checkReaderCrashes(ctx)...)
	}
	checks = append(checks, e.checkReranker(ctx)...)
	checks = append(checks, e.checkVerifier()...)
	checks = append(checks, e.checkProvider(ctx)...)
	return checks
}

func (e *Engine) checkDataDir() Check {
	c := Check{Name: "data folder"}
	if err := os.MkdirAll(e.cfg.Home, 0o755); err != nil {
		c.Detail, c.Fix = err.Error(), fmt.Sprintf("set %s to a folder you can write", config.EnvHome)
		return c
	}
	probe, err := os.CreateTemp(e.cfg.Home, ".write-check-*")
	if err != nil {
		c.Detail, c.Fix = fmt.Sprintf("%s is not writable: %v", e.cfg.Home, err), fmt.Sprintf("fix its permissions or set %s to another folder", config.EnvHome)
		return c
	}
	probe.Close()
	os.Remove(probe.Name())
	c.OK, c.Detail = true, e.cfg.Home
	return c
}

func (e *Engine) checkIndex(ctx context.Context) Check {
	c := Check{Name: "index (SQLite, FTS5, sqlite-vec)"}
	versions, err := e.store.Versions(ctx)
	if err != nil {
		c.Detail, c.Fix = err.Error(), "rebuild Footnote with the sqlite_fts5 tag (make cli)"
		return c
	}
	docs, chunks, err := e.store.Counts(ctx)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	if err := e.checkAnalyzer(ctx, e.store); err != nil {
		c.Detail, c.Fix = err.Error(), "restart Footnote so it rebuilds the index"
		return c
	}
	c.OK = true
	c.Detail = fmt.Sprintf("%s; %d documents, %d chunks; index %s (settings %s)", versions, docs, chunks, e.store.ContentHash(), e.hash)
	return c
}

func (e *Engine) checkOllama(ctx context.Context) []Check {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	host, model := e.llm.Host(), e.cfg.Settings.LLMModel
	server := Check{Name: "Ollama server"}
	v, err := e.llm.Version(ctx)
	if err != nil {
		server.Detail, server.Fix, server.err = llm.Describe(err, host, model), e.providerFix(err), err
		return []Check{server}
	}
	server.OK, server.Detail = true, fmt.Sprintf("%s, version %s", host, v)
	mc := Check{Name: "LLM model"}
	list, err := e.llm.List(ctx)
	if err != nil {
		mc.Detail, mc.Fix, mc.err = llm.Describe(err, host, model), e.providerFix(err), err
		return []Check{server, mc}
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
		if m.Name == model || m.Model == model || strings.TrimSuffix(m.Name, ":latest") == model {
			mc.OK = true
		}
	}
	if mc.OK {
		mc.Detail = model
	} else {
		mc.Detail = fmt.Sprintf("Model %q is not installed (installed: %s)", model, strings.Join(names, ", "))
		mc.err = fmt.Errorf("%w: %s", llm.ErrModelNotFound, mc.Detail)
		mc.Fix = e.providerFix(mc.err)
	}
	return []Check{server, mc}
}

// CheckLLM verifies, before a question is sent, that Ollama answers and has
// the model, returning one sentence that says what to do otherwise.
func (e *Engine) CheckLLM(ctx context.Context) error {
	for _, c := range e.checkOllama(ctx) {
		if !c.OK {
			// Describe's sentence for the error's kind already says what to do.
			return &DescribedError{Sentence: llm.Describe(c.err, e.llm.Host(), e.cfg.Settings.LLMModel), Err: c.err}
		}
	}
	return nil
}

// DataPath is the absolute form of a path inside the data folder.
func (e *Engine) DataPath(name string) string { return filepath.Join(e.cfg.Home, name) }
