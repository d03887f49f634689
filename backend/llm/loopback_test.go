package llm

import "testing"

func TestIsRemoteURL(t *testing.T) {
	cases := map[string]bool{
		"http://127.0.0.1:11434": false, "127.0.0.1:11434": false, "http://localhost:1234/v1": false,
		"http://LOCALHOST.": false, "http://[::1]:11434": false, "http://127.200.0.9": false, "https://[::ffff:127.0.0.1]:8": false,
		"http://192.168.1.20:11434": true, "gpu-box.lan:11434": true, "https://api.example.com/v1": true,
		"http://[2001:db8::1]:1234": true, "http://0.0.0.0:11434": true, "http://127.0.0.1.nip.io": true,
		"http://localhost.evil.example": true, "": true, "http://%zz": true,
	}
	for in, want := range cases {
		if got := IsRemoteURL(in); got != want {
			t.Errorf("IsRemoteURL(%q) = %v, want %v", in, got, want)
		}
	}
}
