package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/openai"
)

// generator is the configured LLM provider as the answer pipeline needs it.
type generator struct {
	llm      llm.LLM
	host     string
	describe func(err error, model string) string
	// window is the one context window of a model on this server, which
	// every request to it carries (contextwindow.go).
	window func(context.Context, string) llm.ContextWindow
}

// openaiClients keeps one client (and its connections) per server.
var openaiClients sync.Map

func (e *Engine) openAIClient() (*openai.Client, error) {
	s := e.cfg.Settings
	key := fmt.Sprintf("%s\x00%s\x00%p", s.OpenAIBaseURL, s.OpenAIAPIKey, e.hc)
	if c, ok := openaiClients.Load(key); ok {
		return c.(*openai.Client), nil
	}
	c, err := openai.New(s.OpenAIBaseURL, s.OpenAIAPIKey, e.hc)
	if err != nil {
		return nil, err
	}
	c.FirstTokenTimeout = time.Duration(s.FirstTokenTimeoutS) * time.Second
	c.StreamIdleTimeout = time.Duration(s.StreamIdleTimeoutS) * time.Second
	actual, _ := openaiClients.LoadOrStore(key, c)
	return actual.(*openai.Client), nil
}

func (e *Engine) generator() (generator, error) {
	s := e.cfg.Settings
	if err := e.CheckRemoteServer(); err != nil {
		return generator{}, err
	}
	if s.Provider == config.ProviderOpenAI {
		c, err := e.openAIClient()
		if err != nil {
			return generator{}, err
		}
		return generator{
			llm: c, host: c.Host(),
			describe: func(err error, model string) string { return e.describeOpenAI(err, c.Host(), model) },
			window:   e.openAIWindow(c),
		}, nil
	}
	c := e.llm.WithFirstTokenTimeout(time.Duration(s.FirstTokenTimeoutS) * time.Second).
		WithStreamIdleTimeout(time.Duration(s.StreamIdleTimeoutS) * time.Second)
	return generator{
		llm: c, host: c.Host(),
		describe: func(err error, model string) string { return llm.Describe(err, c.Host(), model) },
		window:   e.ollamaWindow(c),
	}, nil
}

// CheckAnswerModel verifies, before a question is sent, that the configured
// provider answers and has the model; it returns one sentence saying what
// to do otherwise.
func (e *Engine) CheckAnswerModel(ctx context.Context) error {
	if err := e.CheckRemoteServer(); err != nil {
		return err
	}
	if e.cfg.Settings.Provider != config.ProviderOpenAI {
		return e.CheckLLM(ctx)
	}
	c, err := e.openAIClient()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	// A model the server does not list is asked for anyway: some servers
	// answer to names they do not list, and one that refuses says why.
	if _, err := c.FindModel(ctx, e.cfg.Settings.LLMModel); err != nil && !errors.Is(err, llm.ErrModelNotFound) {
		return &DescribedError{Sentence: e.describeOpenAI(err, c.Host(), e.cfg.Settings.LLMModel), Err: err}
	}
	return nil
}

// describeOpenAI is openai.DescribeFor naming where the server address was
// set: FOOTNOTE_OPENAI_BASE_URL when it came from the environment.
func (e *Engine) describeOpenAI(err error, host, model string) string {
	where := "openai_base_url in Settings"
	if e.cfg.Settings.OpenAIBaseURLFromEnv {
		where = config.EnvOpenAIURL
	}
	return openai.DescribeFor(err, host, model, where)
}

// NoAnswerModel reports whether err says no answer model can be reached —
// the server is not running or the model is not installed. Questions are
// then answered with the passages that match (rag.RefusalNoModel).
func NoAnswerModel(err error) bool {
	return errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound)
}
