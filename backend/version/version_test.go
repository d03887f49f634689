package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestUnstampedSaysDevAndTheCommit(t *testing.T) {
	settings := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	for _, c := range []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "dev"},
		{settings(), true, "dev"},
		{settings("vcs.revision", "86b5c2b0e1f2a3b4c5d6", "vcs.modified", "false"), true, "dev+g86b5c2b"},
		{settings("vcs.revision", "86b5c2b0e1f2a3b4c5d6", "vcs.modified", "true"), true, "dev+g86b5c2b.dirty"},
	} {
		if got := unstamped(c.info, c.ok); got != c.want {
			t.Errorf("unstamped(%v) = %q, want %q", c.info, got, c.want)
		}
	}
}

// A test binary is never stamped: it must not claim a release.
func TestTestBinaryIsUnstamped(t *testing.T) {
	if Stamped() {
		t.Fatalf("test binary stamped %q", String())
	}
	if v := String(); v != "dev" && v[:4] != "dev+" {
		t.Errorf("String() = %q, want dev or dev+…", v)
	}
	if d := Describe(); !strings.HasPrefix(d, String()+" (") || !strings.Contains(d, "not stamped") {
		t.Errorf("Describe() = %q, want the version and that it is not stamped", d)
	}
}
