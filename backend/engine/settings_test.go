package engine

import (
	"testing"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/search"
)

func TestNewAppliesSavedSwitches(t *testing.T) {
	s := config.Defaults()
	s.RetrievalMode, s.AnswerCache, s.CrossSection = search.ModeVector, false, provenance.PolicyForbid
	en, err := New(config.Config{Home: t.TempDir(), Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	if en.RetrievalMode() != search.ModeVector || en.CacheEnabled() || en.pipeline().Mode != search.ModeVector {
		t.Errorf("saved switches not applied: mode %q, pipeline %q, cache %v", en.RetrievalMode(), en.pipeline().Mode, en.CacheEnabled())
	}
	if err := en.SetRetrievalMode("psychic"); err == nil || en.RetrievalMode() != search.ModeVector {
		t.Errorf("unknown mode accepted (err %v, mode now %q)", err, en.RetrievalMode())
	}
	if err := en.SetRetrievalMode(""); err != nil || en.RetrievalMode() != search.ModeHybrid {
		t.Errorf("empty mode should mean hybrid: %v, %q", err, en.RetrievalMode())
	}
	s.RetrievalMode = "psychic"
	if _, err := New(config.Config{Home: t.TempDir(), Settings: s}); err == nil {
		t.Error("New accepted an unknown saved retrieval mode")
	}
}
