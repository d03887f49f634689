// Package version names the build of Footnote that is running. The Makefile
// stamps it from git at link time (scripts/version.sh says how the string is
// made); `footnote --version`, the app's Settings, doctor, every stored
// answer and every audit line show the same string.
package version

import (
	"runtime"
	"runtime/debug"
)

// stamped is set by the linker:
//
//	-ldflags "-X github.com/footnote-app/footnote/backend/version.stamped=0.1.0-dev.412+g86b5c2b"
var stamped string

// Unstamped is the version of a build the Makefile did not stamp (a plain
// `go build` or `go test`).
const Unstamped = "dev"

// String is the running build's version: the stamped one, or for an
// unstamped build "dev", with the commit Go recorded when it built from a
// git checkout ("dev+g86b5c2b", ".dirty" when files were modified). It
// holds no spaces, so it stays one field in the audit log.
func String() string {
	if stamped != "" {
		return stamped
	}
	return unstamped(debug.ReadBuildInfo())
}

// Stamped reports whether the build was stamped by the Makefile.
func Stamped() bool { return stamped != "" }

// Describe is String with the platform and Go release, and for an
// unstamped build a word that it is one, for `footnote --version` and doctor:
// "0.1.0 (linux/amd64, go1.27.0)".
func Describe() string {
	d := String() + " (" + runtime.GOOS + "/" + runtime.GOARCH + ", " + runtime.Version()
	if !Stamped() {
		d += "; not stamped: built without the Makefile"
	}
	return d + ")"
}

func unstamped(info *debug.BuildInfo, ok bool) string {
	if !ok {
		return Unstamped
	}
	var rev string
	var modified bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return Unstamped
	}
	v := Unstamped + "+g" + rev[:min(7, len(rev))]
	if modified {
		v += ".dirty"
	}
	return v
}
