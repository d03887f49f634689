package main

import (
	"fmt"
	"github.com/footnote-app/footnote/backend/engine"
	"io"
	"strings"
)

// askJSON is ask --json's output: the answer as stored and, when it was
// served from the cache, the command that asks the question fresh.
type askJSON struct {
	engine.Answer
	AskFresh string `json:"ask_fresh,omitempty"`
	ThreadID string `json:"thread_id,omitempty"`
	Turn     int    `json:"turn,omitempty"`
}

func askFreshCommand(question string) string { return "footnote ask --fresh " + shellQuote(question) }

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// printCacheNote discloses a cached answer: the original question and when
// it was answered, what matched, and how to ask fresh.
func printCacheNote(w io.Writer, ans engine.Answer) {
	c := ans.Cache
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\nServed from the answer cache; nothing was sent to the model.\n")
	fmt.Fprintf(w, "  original question: %q, answered %s\n", c.OriginalQuestion, c.AnsweredAt.Local().Format("2006-01-02 15:04"))
	if c.Matched != nil {
		for _, line := range c.Matched.Describe(c.Similarity, c.Threshold) {
			fmt.Fprintf(w, "  matched: %s\n", line)
		}
	} else {
		fmt.Fprintf(w, "  similarity %.2f (threshold %.2f)\n", c.Similarity, c.Threshold)
	}
	fmt.Fprintf(w, "  to ask fresh: %s\n", askFreshCommand(ans.Question))
}
