package verify

// Summary counts an answer's verdicts.
type Summary struct {
	Claims      int   `json:"claims"` // checkable claims
	Supported   int   `json:"supported"`
	Partial     int   `json:"partial"`
	Unsupported int   `json:"unsupported"`
	Uncited     int   `json:"uncited"`
	Citations   int   `json:"citations"`  // (claim, marker) pairs checked
	Supporting  int   `json:"supporting"` // of those, the ones whose passage supports the claim fully or partly
	Failing     []int `json:"failing"`    // indexes of unsupported and uncited claims
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
			s.Failing = append(s.Failing, i)
		case Uncited:
			s.Uncited++
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

// Verified reports an answer whose every claim is cited and supported or
// partly supported by what it cites: what "grounded" means.
func (s Summary) Verified() bool { return s.Claims > 0 && s.Unsupported == 0 && s.Uncited == 0 }

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
