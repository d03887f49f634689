package rag

import (
	"context"
	"fmt"
	"strings"

	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/verify"
)

// Verification modes (setting `verification`).
const (
	// VerifyStrict: a cited claim its passage does not support, or a claim
	// without a citation, makes the answer not grounded (refusal reason
	// RefusalUnsupportedClaim); the text is still shown with the claims marked.
	VerifyStrict = "strict"
	// VerifyWarn marks failing claims only; grounded stays as the citation
	// check says.
	VerifyWarn = "warn"
	// VerifyOff does not verify claims.
	VerifyOff = "off"
)

// VerificationModes lists the accepted values of the setting.
var VerificationModes = []string{VerifyStrict, VerifyWarn, VerifyOff}

// RefusalUnsupportedClaim marks an answer whose citations check out but
// whose claims are not supported by the passages they cite (or cite none).
const RefusalUnsupportedClaim = "unsupported_claim"

// Verification summarises the claim check of one answer.
type Verification struct {
	Mode string `json:"mode"` // VerifyStrict or VerifyWarn (no record when off)
	verify.Summary
	// Reasons describes each failing claim (Summary.Failing, in order) in
	// one line, for logs, the CLI footer and the validation report.
	Reasons []string `json:"reasons,omitempty"`
	// ElapsedMS is the time verification took, in milliseconds.
	ElapsedMS float64 `json:"elapsed_ms"`
	// Error is set when the claims could not be verified (an embedding or
	// entailment failure); the answer then counts as not verified.
	Error string `json:"error,omitempty"`
}

// Footer says how many claims were verified (hold, verify.Result.Holds),
// e.g. "4 of 4 claims verified".
func (v Verification) Footer() string {
	ok := v.Holding()
	noun := "claims"
	if v.Claims == 1 {
		noun = "claim"
	}
	return fmt.Sprintf("%d of %d %s verified", ok, v.Claims, noun)
}

// verificationMode normalises the pipeline's setting: empty means warn,
// the default (see config.Settings.Verification).
func (p *Pipeline) verificationMode() string {
	if p.Verification == "" {
		return VerifyWarn
	}
	return p.Verification
}

// verifierStep describes the verification of ans for its derivation chain,
// e.g. "strict(lexical+semantic)"; "" when its claims were not verified.
func (p *Pipeline) verifierStep(ans Answer) string {
	if ans.Verification == nil || ans.Verification.Error != "" {
		return ""
	}
	signals := "lexical"
	if v := p.Verifier; v != nil {
		if v.Embedder != nil {
			signals += "+semantic"
		}
		if v.Entailer != nil {
			signals += "+entailment"
		}
	}
	return ans.Verification.Mode + "(" + signals + ")"
}

// evidenceTexts are the passage texts the model saw, for EchoedMarkers.
func evidenceTexts(cs []Citation) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

// ClaimMarkers lists the citation numbers the claims really carry, in order
// of first appearance: markers inside code and markers copied out of
// evidence text are not among them (see verify.Claims).
func ClaimMarkers(claims []verify.Claim) []int {
	var out []int
	seen := map[int]bool{}
	for _, c := range claims {
		for _, n := range c.Markers {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return out
}

// Passages turns packed citations into what the verifier checks against:
// the chunk text and its start in the document in code points, so support
// spans carry document offsets, and the title, heading path and table
// header the chunk was indexed with, where a passage names its subject.
func Passages(cs []Citation) []verify.Passage {
	out := make([]verify.Passage, len(cs))
	for i, c := range cs {
		ctx := c.Context
		if ctx == "" {
			ctx = c.Title
		}
		out[i] = verify.Passage{N: c.N, Text: c.Text, Start: c.Offsets.Start, Context: ctx}
	}
	return out
}

// verifyClaims checks the answer's claims against the packed passages they
// cite and records the results on ans. It reports whether the claims pass:
// none unsupported and none uncited.
func (p *Pipeline) verifyClaims(ctx context.Context, ans *Answer, claims []verify.Claim) (bool, error) {
	v := p.Verifier
	if v == nil {
		v = &verify.Verifier{}
	}
	start := p.Clock.Now()
	results, err := v.VerifyAnswer(ctx, claims, Passages(ans.Evidence))
	if err != nil {
		return false, fmt.Errorf("verify claims: %w", err)
	}
	sum := verify.Summarize(results)
	ans.Claims = results
	rec := &Verification{Mode: p.verificationMode(), Summary: sum, ElapsedMS: float64(p.Clock.Now().Sub(start).Microseconds()) / 1000}
	if rec.Failing == nil {
		rec.Failing = []int{}
	}
	for _, i := range sum.Failing {
		rec.Reasons = append(rec.Reasons, DescribeClaim(i, results[i]))
	}
	ans.Verification = rec
	return len(sum.Failing) == 0, nil
}

// DescribeClaim says in one line why claim i (0-based) fails, e.g.
// `claim 2 "The limit is 40 MB [#2]." is unsupported: [#2] …`.
func DescribeClaim(i int, r verify.ClaimResult) string {
	text := strings.Join(strings.Fields(r.Claim.Text), " ")
	if len([]rune(text)) > 120 {
		text = string([]rune(text)[:117]) + "…"
	}
	s := fmt.Sprintf("claim %d %q is %s", i+1, text, r.Verdict)
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// claimIssues turns failing claims into validation issues, so the report
// names them: errors under strict verification, warnings under warn.
func claimIssues(ans *Answer, severity string) []provenance.Issue {
	if ans.Verification == nil {
		return nil
	}
	var out []provenance.Issue
	for k, i := range ans.Verification.Failing {
		r := ans.Claims[i]
		n := 0
		if len(r.Claim.Markers) > 0 {
			n = r.Claim.Markers[0]
		}
		fix := "Check the claim against the passage it cites; ask again or rephrase the question."
		if r.Verdict == verify.Uncited {
			fix = "The model stated this without a citation; ask again or rephrase the question."
		}
		out = append(out, provenance.Issue{Code: RefusalUnsupportedClaim, Severity: severity, N: n,
			Message: ans.Verification.Reasons[k], Fix: fix})
	}
	return out
}

// applyVerification verifies the claims under the pipeline's mode and
// adjusts grounded, the refusal reason and the validation report. reason is
// the refusal reason so far ("" when the citations checked out).
func (p *Pipeline) applyVerification(ctx context.Context, ans *Answer, claims []verify.Claim, reason string) string {
	mode := p.verificationMode()
	if mode == VerifyOff || len(ans.Evidence) == 0 || strings.TrimSpace(ans.Answer) == "" {
		return reason
	}
	severity := provenance.SeverityWarning
	if mode == VerifyStrict {
		severity = provenance.SeverityError
	}
	pass, err := p.verifyClaims(ctx, ans, claims)
	switch {
	case err != nil:
		// An embedding or entailment failure must not lose the answer: it
		// is stored, unverified, with the error in the report.
		ans.Verification = &Verification{Mode: mode, Error: err.Error(), Summary: verify.Summary{Failing: []int{}}}
		ans.Validation.Issues = append(ans.Validation.Issues, provenance.Issue{Code: RefusalUnsupportedClaim, Severity: severity,
			Message: "the claims could not be verified: " + err.Error(), Fix: "Ask again; if it persists, check the embedding model in Settings."})
	case pass:
		return reason
	default:
		ans.Validation.Issues = append(ans.Validation.Issues, claimIssues(ans, severity)...)
	}
	if mode == VerifyStrict {
		ans.Validation.OK = false
		if reason == "" {
			ans.Grounded, reason = false, RefusalUnsupportedClaim
		}
	}
	return reason
}

// Reverify checks a stored answer's claims again against ans.Evidence (the
// passages as they are now, which the caller refreshes), under the
// pipeline's mode: the hook for serving a cached answer. It replaces the
// claims, the summary and the claim issues of the validation report; an
// answer grounded before stays grounded only if its claims still pass
// under strict verification. Verification off clears the claims.
func (p *Pipeline) Reverify(ctx context.Context, ans *Answer) {
	ans.Claims, ans.Verification = nil, nil
	kept := ans.Validation.Issues[:0:0]
	for _, is := range ans.Validation.Issues {
		if is.Code != RefusalUnsupportedClaim {
			kept = append(kept, is)
		}
	}
	ans.Validation.Issues = kept
	_, failed := ans.Validation.FirstError()
	ans.Validation.OK = !failed
	reason := ""
	if ans.RefusalReason != nil && *ans.RefusalReason != RefusalUnsupportedClaim {
		reason = *ans.RefusalReason
	}
	claims := verify.Claims(ans.Answer, ans.Question, evidenceTexts(ans.Evidence)...)
	if reason == "" && len(ClaimMarkers(claims)) > 0 {
		ans.Grounded = ans.Validation.OK
	}
	reason = p.applyVerification(ctx, ans, claims, reason)
	if reason == "" {
		ans.RefusalReason = nil
	} else {
		ans.RefusalReason = &reason
	}
}
