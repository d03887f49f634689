// Command make-test-model writes the tiny deterministic embedding model used
// by end-to-end tests and demos into a folder: make-test-model DIR.
package main

import (
	"fmt"
	"os"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: make-test-model DIR")
		os.Exit(2)
	}
	if err := embedtest.WriteTinyModel(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "make-test-model:", err)
		os.Exit(1)
	}
}
