package verify

// Summary counts an answer's verdicts.
type Summary struct {
	Claims      int `json:"claims"` // checkable claims
	Supported   int `json:"supported"`
	Partial     int `json:"partial"`
	Unsupported int `json:"unsupported"`
	Uncited     int `json:"uncited"`
	Citations   int `json:"citations"`  // (claim, marker) pairs checked
	Supporting  int `json:"supporting"` // of those, the ones whose passage supports the claim fully or partly
	// Failing are the indexes of the claims that do not hold (Holds):
	// unsupported, uncited, or partly supported without one of their values.
	Failing []int `json:"failing"`
}

// Summarize counts the results of VerifyAnswer.
func Summarize(results []ClaimResult) Summary {
	var s Summary
	for i, r := range results {
		if r.Verdict == "" {
			continue
		}
		s.Claims++
		switch r.Verdict {
		case Supported:
			s.Supported++
		case Partial:
			s.Partial++
		case Unsupported:
			s.Unsupported++
		case Uncited:
			s.Uncited++
		}
		if !r.Holds() {
			s.Failing = append(s.Failing, i)
		}
		for _, c := range r.Results {
			s.Citations++
			if c.Verdict == Supported || c.Verdict == Partial {
				s.Supporting++
			}
		}
	}
	return s
}

// Verified reports an answer whose every claim holds (Holds): what
// "grounded" means under strict verification.
func (s Summary) Verified() bool { return s.Claims > 0 && len(s.Failing) == 0 }

// Holding is how many of the answer's claims hold (Holds).
func (s Summary) Holding() int { return s.Claims - len(s.Failing) }

// Holds reports a claim that keeps its answer grounded under strict
// verification: one of the passages it cites holds it (Result.Holds).
func (c ClaimResult) Holds() bool {
	for _, r := range c.Results {
		if r.Holds() {
			return true
		}
	}
	return false
}

// Holds reports a result that keeps an answer grounded under strict
// verification: supported, or partly supported where what the passage lacks
// is wording, never a number, date, code or name the claim states (scored
// under factStatedAt) nor its negation. A value the passage does not state
// is what an altered or misattributed claim looks like: on the SQuAD
// probes, 8 of the 16 claims citing the wrong paragraph that kept their
// answer grounded were partial for want of a value or negation, and on the
// WiCE dev set letting partial claims through only without such a gap
// halves the partly supported claims kept grounded (34 of 80 → 17) for
// 25 more supported claims refused (17 of 115 → 38; bench/claims/README.md).
// The verdict stays partial: warn mode shows the claim, marked.
func (r Result) Holds() bool {
	switch r.Verdict {
	case Supported:
		return true
	case Partial:
		return !lacksValue(r.Signals)
	}
	return false
}

// lacksValue reports signals with a value or negation fact the passage does
// not state.
func lacksValue(s Signals) bool {
	for _, f := range s.Facts {
		if f.Kind != atomWords && f.Score < factStatedAt {
			return true
		}
	}
	return false
}

// CitationRecall is the share of cited claims fully supported by their
// citations (citation recall in the sense of attributed-QA benchmarks such
// as ALCE). With no cited claim it is 0.
func (s Summary) CitationRecall() float64 {
	if cited := s.Claims - s.Uncited; cited > 0 {
		return float64(s.Supported) / float64(cited)
	}
	return 0
}

// CitationPrecision is the share of citations whose passage supports its
// claim, fully or partly. With no citation it is 0.
func (s Summary) CitationPrecision() float64 {
	if s.Citations > 0 {
		return float64(s.Supporting) / float64(s.Citations)
	}
	return 0
}
