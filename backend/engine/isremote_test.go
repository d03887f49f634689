package engine

import (
	"testing"

	"github.com/footnote-app/footnote/backend/config"
)

func TestIsRemote(t *testing.T) {
	cases := map[string]bool{
		"http://127.0.0.1:11434": false, "127.0.0.1:11434": false, "http://localhost:11434": false,
		"http://[::1]:11434": false, "http://127.8.9.10": false, "http://LOCALHOST": false,
		"http://192.168.1.20:11434": true, "gpu-box.lan:11434": true, "https://api.example.com/v1": true,
		"http://[2001:db8::1]:1234": true, "http://0.0.0.0:11434": true,
	}
	for in, want := range cases {
		if got := isRemote(in); got != want {
			t.Errorf("isRemote(%q) = %v, want %v", in, got, want)
		}
	}
	s := config.Defaults()
	if isRemote(modelServer(s, "http://127.0.0.1:11434")) {
		t.Error("default settings must be loopback")
	}
	s.Provider, s.OpenAIBaseURL = config.ProviderOpenAI, "http://10.0.0.5:1234/v1"
	if !isRemote(modelServer(s, "http://127.0.0.1:11434")) {
		t.Error("a LAN OpenAI-compatible server must be flagged remote")
	}
}
