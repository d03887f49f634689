package main

import (
	"fmt"
	"github.com/footnote-app/footnote/backend/engine"
	"io"
)

// verificationState is the one-line claim check of an answer, e.g. "4 of 4
// claims verified", or "" when verification was off.
func verificationState(a engine.Answer) string {
	v := a.Verification
	switch {
	case v == nil:
		return ""
	case v.Error != "":
		return "claims not verified: " + v.Error
	}
	s := v.Footer()
	if v.Mode == engine.VerifyWarn && len(v.Failing) > 0 {
		s += " (warn only)"
	}
	return s
}

// printVerification prints the footer and, for each failing claim, why.
func printVerification(w io.Writer, a engine.Answer) {
	state := verificationState(a)
	if state == "" {
		return
	}
	fmt.Fprintf(w, "\n%s\n", state)
	if a.Verification != nil {
		for _, r := range a.Verification.Reasons {
			fmt.Fprintf(w, "  ✗ %s\n", r)
		}
	}
}
