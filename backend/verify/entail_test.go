package verify_test

import (
	"context"
	"testing"

	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/embed/embedtest"
	"github.com/footnote-app/footnote/backend/verify"
)

// fixedEntailer scores every span the same.
type fixedEntailer struct{ score float32 }

func (f fixedEntailer) Entail(_ context.Context, _ string, spans []string) ([]float32, error) {
	out := make([]float32, len(spans))
	for i := range out {
		out[i] = f.score
	}
	return out, nil
}

func (fixedEntailer) Name() string { return "fixed" }

func TestVerifyEntailmentSignal(t *testing.T) {
	claim := "Footnote needs about 200 MB of disk space."
	lexical := verifyOne(t, &verify.Verifier{}, claim, installPassage)
	if lexical.Signals.Entailment != nil || lexical.Verdict != verify.Supported {
		t.Fatalf("without an entailer: %+v", lexical)
	}
	// An entailment model that denies support halves the score.
	denied := verifyOne(t, &verify.Verifier{Entailer: fixedEntailer{0}}, claim, installPassage)
	if denied.Signals.Entailment == nil || *denied.Signals.Entailment != 0 || denied.Verdict == verify.Supported {
		t.Errorf("with a denying entailer: verdict %s, signals %+v", denied.Verdict, denied.Signals)
	}
	// Full entailment never rescues a wrong number.
	wrong := verifyOne(t, &verify.Verifier{Entailer: fixedEntailer{1}}, "Footnote needs about 40 MB of disk space.", installPassage)
	if wrong.Verdict != verify.Unsupported {
		t.Errorf("a wrong number with full entailment is %s", wrong.Verdict)
	}
}

// The cross-encoder adapter runs a real (generated) hugot cross-encoder.
func TestVerifyCrossEncoderEntailer(t *testing.T) {
	v := &verify.Verifier{Entailer: loadEntailer(t, embedtest.CrossEncoderDir(t))}
	r := verifyOne(t, v, "Footnote needs about 200 MB of disk space.", installPassage)
	e := r.Signals.Entailment
	if e == nil || *e <= 0 || *e >= 1 {
		t.Fatalf("entailment signal %v, want a score in (0,1)", e)
	}
	// The tiny cross-encoder scores query-word coverage, so an unrelated
	// span scores lower than the supporting one.
	other := verifyOne(t, v, "Whales migrate thousands of kilometres every year.", installPassage)
	if other.Signals.Entailment == nil || *other.Signals.Entailment >= *e {
		t.Errorf("unrelated claim entailment %v, supported claim %v", other.Signals.Entailment, *e)
	}
}

func TestVerifyRecordsTheSemanticSignal(t *testing.T) {
	v := &verify.Verifier{Embedder: loadEmbedder(t, embedtest.TinyDir(t))}
	r := verifyOne(t, v, "Footnote needs about 200 MB of disk space.", installPassage)
	s := r.Signals
	if s.Semantic == nil || s.Cosine == nil || s.Baseline == nil {
		t.Fatalf("semantic signal not recorded: %+v", s)
	}
	if *s.Semantic < 0 || *s.Semantic > 1 || *s.Cosine <= *s.Baseline {
		t.Errorf("semantic %v cosine %v baseline %v: the supporting sentence should be more similar than unrelated text", *s.Semantic, *s.Cosine, *s.Baseline)
	}
}

// countingEmbedder counts the texts it embeds.
type countingEmbedder struct {
	embed.Embedder
	texts int
}

func (c *countingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	c.texts += len(texts)
	return c.Embedder.EmbedPassages(ctx, texts)
}

func TestVerifySemanticOnlyIfUndecided(t *testing.T) {
	emb := &countingEmbedder{Embedder: embed.NewFake(64)}
	v := &verify.Verifier{Embedder: emb, SemanticOnlyIfUndecided: true}
	// Warm the reference sentences, then count.
	verifyOne(t, v, "Footnote runs on Linux, macOS and Windows and has a dark theme.", installPassage)
	emb.texts = 0
	decided := verifyOne(t, v, "Footnote needs about 200 MB of disk space.", installPassage)
	if emb.texts != 0 || decided.Signals.Semantic != nil || decided.Verdict != verify.Supported {
		t.Errorf("a lexically supported claim embedded %d texts, semantic %v", emb.texts, decided.Signals.Semantic)
	}
	failed := verifyOne(t, v, "Footnote needs about 40 MB of disk space.", installPassage)
	if emb.texts != 0 || failed.Verdict != verify.Unsupported {
		t.Errorf("a claim failing a constraint embedded %d texts", emb.texts)
	}
	open := verifyOne(t, v, "Footnote runs on Linux, macOS and Windows and has a dark theme.", installPassage)
	if emb.texts == 0 || open.Signals.Semantic == nil {
		t.Errorf("an undecided claim got no semantic signal (%d texts embedded)", emb.texts)
	}
}
