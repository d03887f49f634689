package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

// askSettingsLibrary indexes two passages about two different settings and
// asks for the upload limit through the given model and verification mode.
func askSettingsLibrary(t *testing.T, model ollamafake.Responder, mode string) rag.Answer {
	t.Helper()
	fake := ollamafake.New(ollamafake.WithResponder(model))
	t.Cleanup(fake.Close)
	en := newEngineWith(t, fake.URL(), func(s *config.Settings) { s.Verification = mode }, WithEmbedder(loadTestEmbedder(t)))
	ctx := context.Background()
	lib := writeFiles(t, map[string]string{
		"uploads.md": "# Uploads\n\nThe upload limit is 40 MB per file. Larger files are rejected with a message.\n",
		"cache.md":   "# Answer cache\n\nThe answer cache keeps answers for 30 days. After that they expire.\n",
	})
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	ans, err := en.Ask(ctx, rag.Request{ID: "q1", Question: "What is the upload limit?"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Evidence) < 2 {
		t.Fatalf("both passages must be packed for the test to mean anything, got %d", len(ans.Evidence))
	}
	return ans
}

// TestWrongCitationRefusedByEngine reproduces issue 16: "the limit is 40 MB
// [#n]" citing the passage about the answer cache was shown as grounded.
// Strict verification refuses it; the default (warn) shows it with the
// claim marked.
func TestWrongCitationRefusedByEngine(t *testing.T) {
	wrong := ollamafake.CitingResponder("The upload limit is 40 MB per file", "answer cache")
	if ans := askSettingsLibrary(t, wrong, ""); !ans.Grounded || ans.Verification == nil || ans.Verification.Mode != "warn" ||
		ans.Verification.Unsupported != 1 {
		t.Errorf("default: want the answer shown with its claim marked unsupported, got grounded=%v %+v", ans.Grounded, ans.Verification)
	}
	for _, mode := range []string{"strict"} {
		ans := askSettingsLibrary(t, wrong, mode)
		if ans.Grounded || ans.RefusalReason == nil || *ans.RefusalReason != rag.RefusalUnsupportedClaim {
			t.Fatalf("mode %q: wrong citation must be refused with %s, got grounded=%v reason=%v answer=%q",
				mode, rag.RefusalUnsupportedClaim, ans.Grounded, ans.RefusalReason, ans.Answer)
		}
		var failing []verify.ClaimResult
		for _, c := range ans.Claims {
			if c.Verdict == verify.Unsupported {
				failing = append(failing, c)
			}
		}
		if len(failing) != 1 || failing[0].Reason == "" || !strings.Contains(failing[0].Claim.Text, "40 MB") {
			t.Fatalf("the claim must be marked unsupported with a reason: %+v", ans.Claims)
		}
		if !slices.Contains(ans.Validation.Codes(), rag.RefusalUnsupportedClaim) {
			t.Errorf("validation report does not name the claim: %+v", ans.Validation)
		}
		// What history shows is what was decided.
		recs, err := ansStore(t, ans)
		if err != nil || recs.Grounded || recs.Verification == nil || recs.Verification.Unsupported != 1 {
			t.Errorf("stored answer: %v %+v", err, recs.Verification)
		}
	}
}

// ansStore reloads the answer as history does; the engine is closed by then,
// so it round-trips the stored form instead.
func ansStore(t *testing.T, a rag.Answer) (rag.Answer, error) {
	t.Helper()
	rec, err := rag.Record(a)
	if err != nil {
		return rag.Answer{}, err
	}
	return rag.FromRecord(rec)
}

// TestCorrectCitationVerifiedByEngine: the same claim citing the passage
// that states it is grounded, every claim supported, with a span.
func TestCorrectCitationVerifiedByEngine(t *testing.T) {
	ans := askSettingsLibrary(t, ollamafake.CitingResponder("The upload limit is 40 MB per file", "upload limit"), "")
	if !ans.Grounded || ans.RefusalReason != nil {
		t.Fatalf("want grounded, got reason %v: %+v", ans.RefusalReason, ans.Validation)
	}
	v := ans.Verification
	if v == nil || v.Claims == 0 || v.Supported != v.Claims || v.Footer() != fmt.Sprintf("%d of %d claim verified", v.Claims, v.Claims) {
		t.Fatalf("verification: %+v", v)
	}
	for _, c := range ans.Claims {
		if c.Verdict == verify.Supported && (len(c.Results) == 0 || !strings.Contains(c.Results[0].Span.Text, "40 MB")) {
			t.Errorf("supported claim without its span: %+v", c)
		}
	}
}

// TestVerificationSettingModes: warn keeps grounded as the citation check
// says and marks the claim; off records no claims.
func TestVerificationSettingModes(t *testing.T) {
	wrong := ollamafake.CitingResponder("The upload limit is 40 MB per file", "answer cache")
	ans := askSettingsLibrary(t, wrong, "warn")
	if !ans.Grounded || ans.Verification == nil || ans.Verification.Unsupported != 1 {
		t.Errorf("warn: want grounded with the claim marked, got grounded=%v %+v", ans.Grounded, ans.Verification)
	}
	ans = askSettingsLibrary(t, wrong, "off")
	if !ans.Grounded || ans.Claims != nil || ans.Verification != nil {
		t.Errorf("off: want grounded and no claims, got grounded=%v claims=%d", ans.Grounded, len(ans.Claims))
	}
}

// TestVerifierWeighsByIndexStatistics: the verifier's term statistics are
// the keyword index's own document frequencies, and follow an ingest.
func TestVerifierWeighsByIndexStatistics(t *testing.T) {
	en := newEngineWith(t, "127.0.0.1:1", nil, WithEmbedder(loadTestEmbedder(t)))
	ctx := context.Background()
	lib := writeFiles(t, map[string]string{
		"uploads.md": "# Uploads\n\nThe upload limit is 40 MB per file.\n",
		"cache.md":   "# Answer cache\n\nThe answer cache keeps answers for 30 days.\n",
	})
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	stats := en.verifier().Stats
	_, chunks, err := en.index().Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats == nil || stats.DocCount() != chunks || chunks < 2 {
		t.Fatalf("doc count %v, index has %d chunks", stats, chunks)
	}
	if got := stats.DocFreq("upload"); got != 1 {
		t.Errorf("DocFreq(upload) = %d, want 1", got)
	}
	if got := stats.DocFreq("the"); got != 2 {
		t.Errorf("DocFreq(the) = %d, want 2", got)
	}
	if got := stats.DocFreq("zebra"); got != 0 {
		t.Errorf("DocFreq(zebra) = %d, want 0", got)
	}
	if en.verifier() != en.verifier() || !en.verifier().SemanticOnlyIfUndecided || en.verifier().Embedder == nil {
		t.Errorf("the verifier must be built once, with the embedding model, semantics only when undecided")
	}
}

// TestEntailmentModelFromSettings: a cross-encoder folder in the settings
// adds the entailment signal to every checked pair, and a three-label NLI
// model the contradiction signal too; a bad folder leaves verification
// running without it and Doctor says why, naming the folder.
func TestEntailmentModelFromSettings(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.CitingResponder("The upload limit is 40 MB per file", "upload limit")))
	defer fake.Close()
	sentiment := embedtest.CopyFolder(t, embedtest.NLIDir(t))
	embedtest.SetLabels(t, sentiment, map[string]string{"0": "negative", "1": "neutral", "2": "positive"})
	for _, tc := range []struct {
		name, dir     string
		ok, contra    bool
		detail, label string
	}{
		{name: "one-label cross-encoder", dir: embedtest.CrossEncoderDir(t), ok: true, detail: "(entailment signal)"},
		{name: "three-label NLI model", dir: embedtest.NLIDir(t), ok: true, contra: true, detail: "(entailment and contradiction signals)"},
		{name: "missing folder", dir: filepath.Join(t.TempDir(), "none"), detail: "does not exist"},
		{name: "labels that are not NLI labels", dir: sentiment, detail: `"negative" is none of entailment`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			en := newEngineWith(t, fake.URL(), func(s *config.Settings) { s.VerifyModelDir = tc.dir }, WithEmbedder(loadTestEmbedder(t)))
			ctx := context.Background()
			lib := writeFiles(t, map[string]string{"uploads.md": "# Uploads\n\nThe upload limit is 40 MB per file.\n"})
			if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
				t.Fatal(err)
			}
			ans, err := en.Ask(ctx, rag.Request{ID: "q", Question: "What is the upload limit?"}, nil)
			if err != nil || ans.Verification == nil || ans.Verification.Claims == 0 {
				t.Fatalf("ask: %v %+v", err, ans.Verification)
			}
			for _, c := range ans.Claims {
				for _, r := range c.Results {
					if (r.Signals.Entailment != nil) != tc.ok || (r.Signals.Contradiction != nil) != tc.contra {
						t.Errorf("entailment signal recorded = %v, contradiction = %v; want %v, %v",
							r.Signals.Entailment != nil, r.Signals.Contradiction != nil, tc.ok, tc.contra)
					}
				}
			}
			var line *Check
			for _, c := range en.Doctor(ctx) {
				if c.Name == "claim verifier" {
					line = &c
				}
			}
			if line == nil || line.OK != tc.ok || !strings.Contains(line.Detail, tc.detail) ||
				(!tc.ok && (!strings.Contains(line.Detail, config.EnvVerifyModel) || !strings.Contains(line.Detail, tc.dir))) {
				t.Errorf("doctor line: %+v", line)
			}
		})
	}
}

// TestCachedAnswerIsReverifiedBeforeServed: an answer cached while
// verification was off, whose claim its passage does not support, is checked
// again when the same question comes back under strict verification — it is
// dropped and the question answered fresh, never served as grounded.
func TestCachedAnswerIsReverifiedBeforeServed(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithResponder(ollamafake.CitingResponder("The upload limit is 40 MB per file", "answer cache")))
	t.Cleanup(fake.Close)
	en := newEngineWith(t, fake.URL(), func(s *config.Settings) { s.Verification = "strict" }, WithEmbedder(loadTestEmbedder(t)))
	ctx := context.Background()
	lib := writeFiles(t, map[string]string{
		"uploads.md": "# Uploads\n\nThe upload limit is 40 MB per file. Larger files are rejected with a message.\n",
		"cache.md":   "# Answer cache\n\nThe answer cache keeps answers for 30 days. After that they expire.\n",
	})
	if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
		t.Fatal(err)
	}
	q := "What is the upload limit?"
	off := AskOptions{Verification: "off"}
	first, err := en.AskWith(ctx, rag.Request{ID: "q1", Question: q}, nil, off)
	if err != nil || !first.Grounded {
		t.Fatalf("with verification off the wrong citation passes the marker check and is cached: grounded=%v err=%v", first.Grounded, err)
	}
	again, err := en.AskWith(ctx, rag.Request{ID: "q2", Question: q}, nil, off)
	if err != nil || again.Cache == nil || !again.Cache.Hit {
		t.Fatalf("precondition: the same question is served from the cache while verification stays off (err %v)", err)
	}
	strict, err := en.Ask(ctx, rag.Request{ID: "q3", Question: q}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strict.Cache != nil {
		t.Fatalf("cached answer with an unsupported claim was served: %+v", strict.Cache)
	}
	if strict.Grounded || strict.RefusalReason == nil || *strict.RefusalReason != rag.RefusalUnsupportedClaim {
		t.Errorf("fresh answer: grounded=%v reason=%v", strict.Grounded, strict.RefusalReason)
	}
	// The failing entry is gone: even with verification off again the
	// question is answered fresh.
	later, err := en.AskWith(ctx, rag.Request{ID: "q4", Question: q}, nil, off)
	if err != nil || later.Cache != nil {
		t.Errorf("dropped entry served again: %+v (err %v)", later.Cache, err)
	}
}
