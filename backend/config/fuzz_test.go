package config

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad feeds arbitrary bytes as settings.json: Load must never panic,
// must either fail with an error or return settings that validate, and
// settings it accepts must survive a Save/Load round trip unchanged.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"top_k": 10, "word_match_gate": 0.5}`))
	f.Add([]byte(`{"top_k": -1}`))
	f.Add([]byte(`{"provider": "openai", "openai_base_url": ""}`))
	f.Add([]byte(`{"num_ctx": 1e309}`))
	f.Add([]byte(`{"llm_model": "\u0000\ud800", "ollama_host": "http://[::1"}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(``))
	f.Add([]byte(`{"top_k": 5, "top_k": "x"}`))
	for _, k := range []string{EnvEmbedModel, EnvLLMModel, EnvOllamaHost, EnvProvider, EnvOpenAIURL, EnvOpenAIKey, "FOOTNOTE_TOP_K"} {
		f.Setenv(k, "")
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		home := t.TempDir()
		if err := os.WriteFile(filepath.Join(home, "settings.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := loadFrom(t, home)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if err := cfg.Settings.Validate(); err != nil {
			t.Fatalf("Load returned settings that do not validate: %v", err)
		}
		if err := cfg.Save(); err != nil {
			t.Fatal(err)
		}
		back, err := loadFrom(t, home)
		if err != nil {
			t.Fatalf("saved settings do not load: %v", err)
		}
		if back.Settings != cfg.Settings {
			t.Fatalf("round trip changed settings:\n%+v\n%+v", cfg.Settings, back.Settings)
		}
	})
}

func loadFrom(t *testing.T, home string) (Config, error) {
	t.Helper()
	old, had := os.LookupEnv(EnvHome)
	os.Setenv(EnvHome, home)
	defer func() {
		if had {
			os.Setenv(EnvHome, old)
		} else {
			os.Unsetenv(EnvHome)
		}
	}()
	return Load()
}
