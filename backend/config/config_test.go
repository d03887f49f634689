package config

import (
	"os"
	"strings"
	"testing"
)

func TestValidateAnswerSettings(t *testing.T) {
	if err := Defaults().Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	cases := map[string]struct {
		edit func(*Settings)
		want string
	}{
		"unknown provider":      {func(s *Settings) { s.Provider = "gpt" }, "provider"},
		"openai without url":    {func(s *Settings) { s.Provider, s.OpenAIBaseURL = ProviderOpenAI, "" }, "openai_base_url"},
		"tiny window":           {func(s *Settings) { s.NumCtx = 100 }, "num_ctx"},
		"reserve beyond window": {func(s *Settings) { s.AnswerReserveTokens = s.NumCtx }, "answer_reserve_tokens"},
		"negative timeout":      {func(s *Settings) { s.FirstTokenTimeoutS = -1 }, "first_token_timeout_s"},
		"no answer length":      {func(s *Settings) { s.MaxAnswerTokens = 0 }, "max_answer_tokens"},
	}
	for name, tc := range cases {
		s := Defaults()
		tc.edit(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %s", name, err, tc.want)
		}
	}
}

func TestProviderFromEnvironment(t *testing.T) {
	t.Setenv(EnvHome, t.TempDir())
	t.Setenv(EnvProvider, ProviderOpenAI)
	t.Setenv(EnvOpenAIURL, "http://127.0.0.1:8080")
	t.Setenv(EnvOpenAIKey, "k")
	cfg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Settings
	if s.Provider != ProviderOpenAI || s.OpenAIBaseURL != "http://127.0.0.1:8080" || s.OpenAIAPIKey != "k" || s.WordMatchGate != DefaultWordMatchGate {
		t.Errorf("settings %+v", s)
	}
}

// TestAnswerLengthAndRemoteConsent: the answer length defaults to 1024
// tokens and follows FOOTNOTE_MAX_ANSWER_TOKENS; FOOTNOTE_ALLOW_REMOTE=1 is
// consent for the process only and is never written to settings.json, while
// a recorded consent round-trips.
func TestAnswerLengthAndRemoteConsent(t *testing.T) {
	home := t.TempDir()
	t.Setenv(EnvHome, home)
	cfg, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settings.MaxAnswerTokens != 1024 || cfg.Settings.AllowRemote {
		t.Fatalf("defaults: max_answer_tokens=%d allow_remote=%v", cfg.Settings.MaxAnswerTokens, cfg.Settings.AllowRemote)
	}
	t.Setenv(EnvMaxAnswerTokens, "300")
	t.Setenv(EnvAllowRemote, "1")
	cfg, err = Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settings.MaxAnswerTokens != 300 || !cfg.Settings.AllowRemote {
		t.Fatalf("environment not applied: max_answer_tokens=%d allow_remote=%v", cfg.Settings.MaxAnswerTokens, cfg.Settings.AllowRemote)
	}
	cfg.Settings.RemoteServerConsent = "http://gpu-box:11434"
	if err := cfg.Save(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(cfg.SettingsPath())
	if err != nil {
		t.Fatal(err)
	}
	if lower := strings.ToLower(string(raw)); strings.Contains(lower, "allow_remote") || strings.Contains(lower, "allowremote") {
		t.Errorf("process-only consent written to settings.json:\n%s", raw)
	}
	t.Setenv(EnvAllowRemote, "")
	t.Setenv(EnvMaxAnswerTokens, "5")
	if _, err := Load(); err == nil || !strings.Contains(err.Error(), "max_answer_tokens") {
		t.Errorf("an answer length of 5 was accepted: %v", err)
	}
	t.Setenv(EnvMaxAnswerTokens, "")
	cfg, err = Load()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Settings.RemoteServerConsent != "http://gpu-box:11434" || cfg.Settings.AllowRemote || cfg.Settings.MaxAnswerTokens != 300 {
		t.Errorf("reloaded %+v", cfg.Settings)
	}
}

// TestVerificationSetting: warn by default, overridable by environment,
// and an unknown value is refused naming the setting and the variable.
func TestVerificationSetting(t *testing.T) {
	t.Setenv(EnvHome, t.TempDir())
	cfg, err := Load()
	if err != nil || cfg.Settings.Verification != "warn" || cfg.Settings.VerifyModelDir != "" {
		t.Fatalf("default: %v %q %q", err, cfg.Settings.Verification, cfg.Settings.VerifyModelDir)
	}
	t.Setenv(EnvVerification, "strict")
	t.Setenv(EnvVerifyModel, "/models/verifier")
	if cfg, err = Load(); err != nil || cfg.Settings.Verification != "strict" || cfg.Settings.VerifyModelDir != "/models/verifier" {
		t.Fatalf("from environment: %v %+v", err, cfg.Settings)
	}
	t.Setenv(EnvVerification, "maybe")
	if _, err = Load(); err == nil || !strings.Contains(err.Error(), `verification="maybe"`) || !strings.Contains(err.Error(), EnvVerification) {
		t.Errorf("want an error naming the setting, got %v", err)
	}
}
