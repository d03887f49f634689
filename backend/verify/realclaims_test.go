package verify_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/verify"
	"github.com/footnote-app/footnote/bench/claims"
)

// TestRealClaimsSample holds the verifier to its figures on claims people
// wrote and labelled: 80 rows of the WiCE dev extract (testdata/
// realclaims_sample.jsonl; bench/claims/data/wice-dev/LICENSE.md), 40
// supported, 15 partly supported, 25 not supported. `make bench` runs the
// whole sets (bench/claims); this keeps a change that makes the verifier
// refuse true claims, or pass false ones, from landing unnoticed.
//
// When these floors were set, the sample (statistics counted over its own
// passages) gave: false alarms 10 of 40 (0.25; the whole dev set: 17 of
// 115); supported claims that do not hold (verify.Result.Holds: refused
// under strict verification) 18 of 40 (0.45; dev set 36 of 115);
// not-supported claims kept grounded 0 of 25; ROC AUC supported vs rest
// 0.905 against the word-overlap baseline's 0.881 (this sample is easy for
// the baseline; on the whole dev set 0.862 against 0.780).
func TestRealClaimsSample(t *testing.T) {
	rows, err := claims.Load(filepath.Join("testdata", "realclaims_sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	outs, err := claims.Run(context.Background(), &verify.Verifier{Stats: claims.Stats(rows)}, rows)
	if err != nil {
		t.Fatal(err)
	}
	r := claims.Measure("sample", outs)
	t.Logf("false alarm %.3f (strict %.3f), false pass %.3f (strict %.3f), AUC supported vs rest %.3f (baseline %.3f), vs not %.3f (baseline %.3f)",
		r.FalseAlarm, r.FalseAlarmStrict, r.FalsePass, r.FalsePassStrict, r.AUC.SupportedVsRest, r.BaselineAUC.SupportedVsRest,
		r.AUC.SupportedVsNot, r.BaselineAUC.SupportedVsNot)
	if r.FalseAlarm > 0.25 || r.FalseAlarmStrict > 0.45 {
		t.Errorf("false alarm %.3f (strict %.3f), want at most 0.25 (strict 0.45)", r.FalseAlarm, r.FalseAlarmStrict)
	}
	if r.FalsePass > 0 || r.FalsePassStrict > 0.05 {
		t.Errorf("false pass %.3f (strict %.3f), want 0 (strict at most 0.05)", r.FalsePass, r.FalsePassStrict)
	}
	if r.AUC.SupportedVsRest < 0.90 || r.AUC.SupportedVsRest < r.BaselineAUC.SupportedVsRest+0.015 {
		t.Errorf("AUC supported vs rest %.3f, want at least 0.90 and 0.015 over the baseline's %.3f",
			r.AUC.SupportedVsRest, r.BaselineAUC.SupportedVsRest)
	}
}

// TestMeasureCountsWhatHolds: the benchmark's strict figures count what
// holds (the product's rule, carried by Outcome.Holds), not every partial verdict.
func TestMeasureCountsWhatHolds(t *testing.T) {
	out := func(label, verdict string, holds bool, score float64) claims.Outcome {
		return claims.Outcome{Row: claims.Row{Label: label, Claim: "a claim"}, Verdict: verdict, Holds: holds, Score: score}
	}
	r := claims.Measure("t", []claims.Outcome{
		out(claims.Supported, verify.Supported, true, 0.9),
		out(claims.Supported, verify.Partial, true, 0.6),
		out(claims.Supported, verify.Partial, false, 0.5), // a value missing: refused under strict, not marked unsupported
		out(claims.Supported, verify.Unsupported, false, 0.2),
		out(claims.NotSupported, verify.Partial, true, 0.55),
		out(claims.NotSupported, verify.Partial, false, 0.45),
		out(claims.NotSupported, verify.Unsupported, false, 0.1),
		out(claims.NotSupported, verify.Supported, true, 0.8),
	})
	for name, c := range map[string]struct{ got, want float64 }{
		"false alarm":        {r.FalseAlarm, 0.25},
		"false alarm strict": {r.FalseAlarmStrict, 0.5},
		"false pass":         {r.FalsePass, 0.25},
		"false pass strict":  {r.FalsePassStrict, 0.5},
		"partial supported":  {r.PartialSupported, 0.5},
		// 16 pairs; supported 0.9, 0.6, 0.5, 0.2 against 0.8, 0.55, 0.45, 0.1.
		"AUC": {r.AUC.SupportedVsNot, 10.0 / 16},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %.3f, want %.3f", name, c.got, c.want)
		}
	}
}
