package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func savedOnDisk(t *testing.T, a *App) config.Settings {
	t.Helper()
	var s config.Settings
	raw, err := os.ReadFile(a.engine.Config().SettingsPath())
	if err == nil {
		err = json.Unmarshal(raw, &s)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return s
}

// TestSaveRemoteServerNeedsConfirmation: saving a model server that is not
// on this machine is refused with an error the UI recognises (by
// errors.Is here, by its code through FormatError in the window) until
// the save says the user confirmed; the consent is kept for that server
// only and dropped when a local server is saved.
func TestSaveRemoteServerNeedsConfirmation(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, _, _ := newTestApp(t, fake)
	refused := func(s UISettings, server string) {
		t.Helper()
		_, err := a.SaveSettings(s)
		var re *engine.RemoteServerError
		if !errors.Is(err, engine.ErrRemoteNotConfirmed) || !errors.As(err, &re) || re.Server != server {
			t.Fatalf("saving %s without confirmation: %v", server, err)
		}
		ui, ok := FormatError(err).(UIError)
		if !ok || ui.Code != CodeRemoteUnconfirmed || ui.Server != server || ui.Message == "" {
			t.Errorf("the UI cannot recognise the refusal: %#v", FormatError(err))
		}
		if disk := savedOnDisk(t, a); engine.SameServer(disk.OllamaHost, server) || engine.SameServer(disk.OpenAIBaseURL, server) {
			t.Errorf("refused server written to settings.json: %+v", disk)
		}
	}
	s := a.Settings()
	s.OllamaHost = "gpu-box.test:11434"
	refused(s, "http://gpu-box.test:11434")

	s.ConfirmRemote = true
	if _, err := a.SaveSettings(s); err != nil {
		t.Fatalf("confirmed save: %v", err)
	}
	if disk := savedOnDisk(t, a); disk.OllamaHost != "gpu-box.test:11434" || disk.RemoteServerConsent != "http://gpu-box.test:11434" {
		t.Fatalf("settings.json after confirming: host %q consent %q", disk.OllamaHost, disk.RemoteServerConsent)
	}
	s.ConfirmRemote, s.TopK = false, 30
	if _, err := a.SaveSettings(s); err != nil {
		t.Errorf("re-saving the confirmed server asked again: %v", err)
	}
	s.OllamaHost = "http://other-box.test:11434"
	refused(s, "http://other-box.test:11434")

	s.Provider, s.OpenAIBaseURL, s.OllamaHost = config.ProviderOpenAI, "http://10.1.2.3:1234", "gpu-box.test:11434"
	refused(s, "http://10.1.2.3:1234/v1")

	s.Provider, s.OllamaHost = config.ProviderOllama, "127.0.0.1:11434"
	if _, err := a.SaveSettings(s); err != nil {
		t.Fatalf("saving a local server: %v", err)
	}
	if disk := savedOnDisk(t, a); disk.RemoteServerConsent != "" {
		t.Errorf("consent kept after a local server was saved: %q", disk.RemoteServerConsent)
	}
	s.OllamaHost = "gpu-box.test:11434"
	refused(s, "http://gpu-box.test:11434") // asked again once consent was dropped

	if got := FormatError(errors.New("plain")); got != "plain" {
		t.Errorf("other errors reach the UI as their sentence, got %#v", got)
	}
}

// TestSaveAnswerLengthAppliesToNextQuestion: the answer length is shown,
// saved, and sent as num_predict with the next question.
func TestSaveAnswerLengthAppliesToNextQuestion(t *testing.T) {
	fake := ollamafake.New(ollamafake.WithTokenDelay(time.Millisecond))
	defer fake.Close()
	a, rec, lib := newTestApp(t, fake)
	if _, err := a.Ingest([]string{lib}); err != nil {
		t.Fatal(err)
	}
	s := a.Settings()
	if s.MaxAnswerTokens != config.DefaultMaxAnswerTokens {
		t.Fatalf("answer length shown as %d", s.MaxAnswerTokens)
	}
	s.MaxAnswerTokens = 5
	if _, err := a.SaveSettings(s); err == nil {
		t.Error("an answer length of 5 tokens was saved")
	}
	s.MaxAnswerTokens = 64
	if _, err := a.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	if disk := savedOnDisk(t, a); disk.MaxAnswerTokens != 64 {
		t.Errorf("settings.json max_answer_tokens=%d", disk.MaxAnswerTokens)
	}
	askAndWait(t, a, rec, "How do I install on Linux?")
	reqs := fake.Requests()
	if len(reqs) == 0 || fmt.Sprint(reqs[len(reqs)-1].Options["num_predict"]) != "64" {
		t.Errorf("num_predict sent: %v", reqs)
	}
}
