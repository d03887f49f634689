package main

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
)

// A failed pull tells the user what to do and still is the client's error
// underneath (errors.Is works), instead of a copy of its text.
func TestPullErrorKeepsItsCause(t *testing.T) {
	setup(t, "127.0.0.1:9") // nothing answers here
	err := cmdPull(context.Background(), []string{"llama3.2:3b"}, io.Discard, io.Discard)
	if !errors.Is(err, llm.ErrUnreachable) || !strings.Contains(err.Error(), "ollama serve") {
		t.Fatalf("pull with Ollama down: %v (is ErrUnreachable: %v)", err, errors.Is(err, llm.ErrUnreachable))
	}
}
