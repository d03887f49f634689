package embed

import (
	"context"
	"math"
	"strings"
	"testing"
)

func TestFake(t *testing.T) {
	ctx := context.Background()
	f := NewFake(64)
	if info := f.Info(); info.ID != "fake@hash" || info.Dim != 64 || info.MaxTokens <= 0 {
		t.Fatalf("Info = %+v", info)
	}
	texts := []string{
		"How do I install the app on Linux?",
		"Install the app on Linux with the package manager",
		"The budget meeting moved to Friday",
		"",
	}
	vecs, err := f.EmbedPassages(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		if len(v) != 64 || math.Abs(norm(v)-1) > 1e-6 {
			t.Errorf("vector %d: len %d norm %v", i, len(v), norm(v))
		}
	}
	if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far+0.2 {
		t.Errorf("sim(shared words)=%.3f not clearly above sim(unrelated)=%.3f", near, far)
	}
	q, err := f.EmbedQuery(ctx, "HOW do i INSTALL the app on linux")
	if err != nil {
		t.Fatal(err)
	}
	if d := maxAbsDiff(q, vecs[0]); d > 1e-7 {
		t.Errorf("case and punctuation changed the vector by %g", d)
	}
	if got := f.CountTokens("one two, three!"); got != 5 {
		t.Errorf("CountTokens = %d, want 5", got)
	}

	long := strings.Repeat("word ", FakeMaxTokens+10)
	prefix, cut := f.Truncate(long)
	if !cut || f.CountTokens(prefix) != FakeMaxTokens {
		t.Errorf("Truncate: cut=%v, %d tokens; want %d", cut, f.CountTokens(prefix), FakeMaxTokens)
	}
	if got, cut := f.Truncate("short text"); cut || got != "short text" {
		t.Errorf("Truncate(short) = %q, %v", got, cut)
	}

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.EmbedPassages(cancelled, texts); err == nil {
		t.Error("EmbedPassages ignored a cancelled context")
	}
	if err := f.Close(); err != nil {
		t.Error(err)
	}
}
