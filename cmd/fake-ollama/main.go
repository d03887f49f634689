// Command fake-ollama serves the in-process Ollama stand-in
// (backend/llm/ollamafake) on a loopback address, answering with the default
// evidence-quoting responder, so browser end-to-end tests and demos run
// without a real Ollama. It stops on SIGINT or SIGTERM. -misquote "20 MB=40 MB"
// makes it misquote what it repeats, so a test can show an unsupported claim.
// -num-ctx 2048 gives the models a Modelfile PARAMETER num_ctx, as a model
// made with `ollama create` may have.
//
//	fake-ollama -addr 127.0.0.1:11434 -token-delay 40ms -model llama3.2:1b
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11434", "loopback `host:port` to listen on")
	delay := flag.Duration("token-delay", 40*time.Millisecond, "pause between streamed tokens")
	model := flag.String("model", ollamafake.DefaultModel, "installed model `names`, comma-separated")
	version := flag.String("version", ollamafake.DefaultVersion, "version reported by /api/version")
	var misquotes [][2]string
	flag.Func("misquote", "`from=to`: write to in place of from in replies (a model misreading its passage); repeatable", func(v string) error {
		from, to, ok := strings.Cut(v, "=")
		if !ok || from == "" {
			return fmt.Errorf("want from=to, e.g. \"20 MB=40 MB\", got %q", v)
		}
		misquotes = append(misquotes, [2]string{from, to})
		return nil
	})
	kind := flag.String("kind", string(ollamafake.KindOllama), "server to impersonate: ollama, llama.cpp, lmstudio, vllm or plain")
	numCtx := flag.Int("num-ctx", 0, "the models' Modelfile PARAMETER num_ctx (0: none, the server's default window applies)")
	flag.Parse()

	var models []ollamafake.Model
	for name := range strings.SplitSeq(*model, ",") {
		if name = strings.TrimSpace(name); name != "" {
			models = append(models, ollamafake.Model{Name: name, NumCtx: *numCtx})
		}
	}
	if len(models) == 0 {
		fmt.Fprintln(os.Stderr, "fake-ollama: -model needs at least one name")
		os.Exit(2)
	}

	opts := []ollamafake.Option{
		ollamafake.WithAddr(*addr),
		ollamafake.WithModels(models...),
		ollamafake.WithTokenDelay(*delay),
		ollamafake.WithVersion(*version),
		ollamafake.WithServerKind(ollamafake.ServerKind(*kind)),
	}
	if len(misquotes) > 0 {
		responder := ollamafake.DefaultResponder
		for _, m := range misquotes {
			responder = ollamafake.Misquoting(responder, m[0], m[1])
		}
		opts = append(opts, ollamafake.WithResponder(responder))
	}
	srv, err := ollamafake.Listen(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("fake-ollama %s listening on %s (models: %s)\n", *version, srv.URL(), *model)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	srv.Close()
	// Ollama loads a model again whenever num_ctx changes between requests;
	// the count shows whether a client made it do so.
	fmt.Printf("fake-ollama: stopped after %d model loads\n", srv.Loads())
}
