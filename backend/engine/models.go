package engine

// The Ollama models behind the model picker: what is installed, and
// pulling one with progress.

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/rerank"
)

// Model is one model installed in Ollama.
type Model struct {
	Name          string    `json:"name"`
	Size          int64     `json:"size"`
	ParameterSize string    `json:"parameter_size"`
	ModifiedAt    time.Time `json:"modified_at"`
}

// PullProgress is the progress of a model pull.
type PullProgress struct {
	Model     string `json:"model"`
	Status    string `json:"status"`
	Completed int64  `json:"completed"`
	Total     int64  `json:"total"`
	Done      bool   `json:"done"`
	Error     string `json:"error,omitempty"`
}

// DescribedError is an error told in one sentence that says what to do,
// keeping the error it describes, so errors.Is and errors.As still see it.
type DescribedError = llm.DescribedError

// OllamaHost is the Ollama server the engine talks to.
func (e *Engine) OllamaHost() string { return e.llm.Host() }

// Models lists the models installed in Ollama.
func (e *Engine) Models(ctx context.Context) ([]Model, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	list, err := e.llm.List(ctx)
	if err != nil {
		return nil, &DescribedError{Sentence: llm.Describe(err, e.llm.Host(), e.Settings().LLMModel), Err: err}
	}
	out := make([]Model, 0, len(list.Models))
	for _, m := range list.Models {
		out = append(out, Model{Name: m.Name, Size: m.Size, ParameterSize: m.Details.ParameterSize, ModifiedAt: m.ModifiedAt})
	}
	return out, nil
}

// PullModel downloads a model into Ollama, reporting progress (the last
// report has Done set, and Error when the pull failed); it returns when the
// pull finished.
func (e *Engine) PullModel(ctx context.Context, name string, progress func(PullProgress)) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("type the name of the model to pull, e.g. llama3.2:3b")
	}
	err := e.llm.Pull(ctx, &llm.PullRequest{Model: name}, func(p llm.ProgressResponse) error {
		progress(PullProgress{Model: name, Status: p.Status, Completed: p.Completed, Total: p.Total})
		return nil
	})
	if err != nil {
		described := &DescribedError{Sentence: llm.Describe(err, e.llm.Host(), name), Err: err}
		progress(PullProgress{Model: name, Status: "failed", Done: true, Error: described.Sentence})
		return described
	}
	progress(PullProgress{Model: name, Status: "success", Done: true})
	return nil
}

// ErrModelFolderInUse matches DownloadEmbedModel's refusal to write into a
// folder that holds something other than an earlier download.
var ErrModelFolderInUse = embed.ErrFolderInUse

// DownloadEmbedModel fetches the default embedding model into dir (a new,
// empty or earlier-download folder), reporting progress.
func DownloadEmbedModel(ctx context.Context, dir string, progress func(ModelProgress)) error {
	return embed.Download(ctx, embed.DefaultSource(), dir, progress)
}

// DownloadEmbedModel fetches the default embedding model into the
// configured folder, reporting progress, then loads it.
func (e *Engine) DownloadEmbedModel(ctx context.Context, progress func(ModelProgress)) error {
	if err := DownloadEmbedModel(ctx, e.cfg.Settings.EmbedModelDir, progress); err != nil {
		return err
	}
	return e.Reload(ctx)
}

// VerifyModelName is the public entailment model DownloadVerifyModel fetches.
const VerifyModelName = rerank.NLIModel

// VerifyModelDir is where the entailment model is downloaded by default:
// the data folder's models/nli-MiniLM2-L6-H768.
func VerifyModelDir(cfg config.Config) string {
	return filepath.Join(cfg.ModelsDir(), VerifyModelName)
}

// DownloadVerifyModel fetches the public NLI cross-encoder
// (cross-encoder/nli-MiniLM2-L6-H768) into dir (a new, empty or
// earlier-download folder), reporting progress, then loads it once so a
// model that cannot run fails here, not at the first question. It returns
// the signals the model gives, for the user.
func DownloadVerifyModel(ctx context.Context, dir string, progress func(ModelProgress)) (string, error) {
	if err := embed.Download(ctx, rerank.NLISource(), dir, progress); err != nil {
		return "", err
	}
	ent, model, err := loadEntailer(ctx, dir)
	if err != nil {
		return "", err
	}
	defer model.Close()
	return entailerSignals(ent), nil
}

// LimitProcessMemory sets the process's soft memory limit for model
// inference unless GOMEMLIMIT set one; only programs' entry points call it.
func LimitProcessMemory() { embed.LimitProcessMemory() }
