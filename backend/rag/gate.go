package rag

import (
	"fmt"
	"strings"

	"github.com/footnote-app/footnote/backend/search"
)

// The gates refuse a question before the model is called, each on one
// absolute signal of the best passages (those the model would be shown),
// never on the rank fusion's score: a fused score says only whether the
// retrievers agreed, so a gate on it refused by whether the vector list
// happened to rank the lexical list's first hit too (issue 36: in hybrid
// mode beside a flat vector list, a third of the answerable questions).
//
//   - The score gate (score_gate) reads the word match: the share of the
//     question's key words, each weighted by how rare it is in the library,
//     that the best passage holds. Below the gate the library holds too
//     little of the question to answer it — unless the embedding model,
//     when it separates the library's passages, puts a passage nearer to
//     the question than an unrelated one (ΔS, deltas.go): evidence found by
//     either retriever is evidence.
//   - The answerability gate (min_rare_term_share) reads the share of the
//     question's rare words the best passage holds: a passage that shares
//     the common words of a question but not what it is about cannot
//     answer it. A rare word the library uses elsewhere counts a quarter
//     held, since the question may only word it otherwise; one the library
//     never uses counts missing in full. While on, it also refuses a
//     question that asks what is not so when no passage holding its words
//     negates anything, and one about a year or rank no passage states
//     while the best one states another (questioncues.go).
//
// Each refusal records its signal, value and threshold (GateRefusal).

// Signals a gate refuses on (GateRefusal.Signal).
const (
	SignalPassages  = "passages"   // retrieval found no passage
	SignalWordMatch = "word_match" // the score gate
	SignalRareWords = "rare_words" // the answerability gate
	SignalNegation  = "negation"   // the answerability gate: the question negates, no passage does (questioncues.go)
	SignalValues    = "values"     // the answerability gate: a year or rank no passage states, another one stated
)

// GateRefusal records what refused a question before the model was called:
// the signal, its value, the threshold it missed, and why in words a user
// understands.
type GateRefusal struct {
	Signal    string  `json:"signal"`
	Value     float64 `json:"value"`
	Threshold float64 `json:"threshold"`
	Why       string  `json:"why"`
}

// gateSignalNames name the signals in words.
// The signals without a share (passages, negation, values) are said in
// words alone.
var gateSignalNames = map[string]string{SignalWordMatch: "word match", SignalRareWords: "share of distinctive words"}

// Sentence says why r refused, with the signal's value and the least it
// needed: "The best passage matches only 1 of the 3 key words of the
// question (missing: …) (word match 0.04, needed 0.10)."
func (r *GateRefusal) Sentence() string {
	if r == nil {
		return ""
	}
	why := r.Why
	if why != "" {
		why = strings.ToUpper(why[:1]) + why[1:]
	}
	if gateSignalNames[r.Signal] == "" {
		return why + "."
	}
	return fmt.Sprintf("%s (%s %.2f, needed %.2f).", why, gateSignalNames[r.Signal], r.Value, r.Threshold)
}

// Short renders r for the audit log: signal:value<threshold.
func (r *GateRefusal) Short() string {
	if r == nil {
		return ""
	}
	return fmt.Sprintf("%s:%.3f<%.3f", r.Signal, r.Value, r.Threshold)
}

// gate decides whether the question is refused before the model is
// called, from the hits, what the question's words say of the best of them
// (ev) and ΔS (d, nil when not measured); it returns the refusal reason
// and what refused, or "" and nil.
func (p *Pipeline) gate(hits []search.Hit, ev WordEvidence, d *DeltaS) (string, *GateRefusal) {
	if len(hits) == 0 {
		return RefusalNoChunks, &GateRefusal{Signal: SignalPassages, Value: 0, Threshold: 1,
			Why: "retrieval found no passage for the question"}
	}
	if !ev.Judged {
		return "", nil
	}
	if ev.Match < p.WordMatchGate && !p.nearByDeltaS(d) {
		return RefusalScoreGate, &GateRefusal{Signal: SignalWordMatch, Value: ev.Match, Threshold: p.WordMatchGate, Why: ev.whyMatch()}
	}
	if p.Answerability != nil && len(ev.Rare) > 0 && ev.RareShare < p.Answerability.MinRareShare {
		return RefusalUnanswerable, &GateRefusal{Signal: SignalRareWords, Value: ev.RareShare,
			Threshold: p.Answerability.MinRareShare, Why: ev.whyRare()}
	}
	if p.Answerability != nil && p.Answerability.MinRareShare > 0 {
		if r := ev.Cues.refusal(); r != nil {
			return RefusalUnanswerable, r
		}
	}
	return "", nil
}

// nearByDeltaS reports whether ΔS puts the best passage nearer to the
// question than an unrelated passage, by a model that separates the
// library's passages (delta_s_gate > 0).
func (p *Pipeline) nearByDeltaS(d *DeltaS) bool {
	return d != nil && p.DeltaSGate > 0 && d.Near(d.Best)
}

func (ev WordEvidence) whyMatch() string {
	if len(ev.Matched) == 0 {
		return "no passage holds any of the question's key words (" + quoteList(ev.KeyWords) + ")"
	}
	return fmt.Sprintf("the best passage matches only %d of the %d key words of the question (missing: %s)",
		len(ev.Matched), len(ev.KeyWords), quoteList(missing(ev.KeyWords, ev.Matched)))
}

func (ev WordEvidence) whyRare() string {
	unused := ""
	if len(ev.Unused) > 0 {
		unused = "; the library never uses " + quoteList(ev.Unused)
	}
	if ev.FocusMissed {
		return fmt.Sprintf("no passage that holds the question's distinctive words names “%s”, what the question asks for", ev.Focus)
	}
	if len(ev.RareMatched) == 0 {
		return "no passage holds any of the question's distinctive words (" + quoteList(ev.Rare) + ")" + unused
	}
	return fmt.Sprintf("the best passage holds only %d of the question's %d distinctive words (missing: %s)%s",
		len(ev.RareMatched), len(ev.Rare), quoteList(missing(ev.Rare, ev.RareMatched)), unused)
}

func quoteList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "“" + w + "”"
	}
	return strings.Join(q, ", ")
}

// recordWords keeps what the gates read on the answer.
func (r *RetrievalSummary) recordWords(ev WordEvidence) {
	if !ev.Judged {
		return
	}
	match, rare := ev.Match, ev.RareShare
	r.WordMatch, r.KeyWords, r.MatchedKeyWords = &match, ev.KeyWords, ev.Matched
	r.RareTermShare, r.RareTerms = &rare, ev.Rare
}
