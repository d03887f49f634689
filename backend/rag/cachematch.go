package rag

import (
	"fmt"
	"strings"
)

// CacheMatch records which of the answer cache's rules a served answer met,
// so the disclosure can say why it was served. A hit needs every rule but
// Reverified, which is recorded once claim re-verification runs.
type CacheMatch struct {
	// Similarity: the questions' embeddings reached the threshold.
	Similarity bool `json:"similarity"`
	// SameAsk: after normalisation both questions hold the same content and
	// the same anchors (numbers, codes, names, negations, units, ...).
	SameAsk bool `json:"same_ask"`
	// Shared lists the anchors both questions name ("number 52").
	Shared []string `json:"shared"`
	// Passages: the new question's own retrieval packs every passage the
	// cached answer cited, at the same revision and with the same text.
	Passages bool `json:"passages"`
	// PassagesCited is how many cited passages that check covered.
	PassagesCited int `json:"passages_cited"`
	// SameIndex: same index, answer model and prompt template.
	SameIndex bool `json:"same_index"`
	// Revisions: every cited document keeps the revision it had.
	Revisions bool `json:"revisions"`
	// Reverified: the answer's claims were re-checked against the current
	// passages before it was served.
	Reverified bool `json:"reverified"`
}

// Describe says, one line per rule, what this hit matched, for the CLI
// (the UI words the same fields itself).
func (m CacheMatch) Describe(similarity, threshold float64) []string {
	var out []string
	if m.Similarity {
		out = append(out, fmt.Sprintf("similarity %.2f, at least the threshold %.2f", similarity, threshold))
	}
	if m.SameAsk {
		line := "asks the same thing after normalisation"
		if len(m.Shared) > 0 {
			line += " (both have: " + strings.Join(m.Shared, ", ") + ")"
		}
		out = append(out, line)
	}
	if m.Passages {
		out = append(out, fmt.Sprintf("this question's own search found the %d cited passage(s), unchanged", m.PassagesCited))
	}
	if m.SameIndex {
		out = append(out, "same index, answer model and prompt template")
	}
	if m.Revisions {
		out = append(out, "every cited document keeps the revision it had")
	}
	if m.Reverified {
		out = append(out, "its claims were re-verified against the current passages")
	}
	return out
}
