// Command make-test-model writes a generated model used by end-to-end tests
// and demos into a folder:
//
//	make-test-model DIR              the tiny deterministic embedding model
//	make-test-model -nli DIR         a tiny three-label NLI cross-encoder laid out
//	                                 like cross-encoder/nli-MiniLM2-L6-H768's ONNX
//	                                 export (random weights), for FOOTNOTE_VERIFY_MODEL
//	make-test-model -nli -full DIR   the same at the public model's size (~200 MB),
//	                                 to measure what the real model costs
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/footnote-app/footnote/backend/embed/embedtest"
)

func main() {
	nli := flag.Bool("nli", false, "write the NLI cross-encoder instead of the embedding model")
	full := flag.Bool("full", false, "with -nli: the public model's size instead of the tiny one")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: make-test-model [-nli [-full]] DIR")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 || *full && !*nli {
		flag.Usage()
		os.Exit(2)
	}
	dir := flag.Arg(0)
	var err error
	if *nli {
		err = embedtest.WriteNLIModel(dir, embedtest.NLIOptions{Full: *full})
	} else {
		err = embedtest.WriteTinyModel(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "make-test-model:", err)
		os.Exit(1)
	}
}
