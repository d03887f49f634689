package app

import (
	"context"
	"strings"
	"testing"
)

func TestOpenLinkOpensOnlyAbsoluteWebAddresses(t *testing.T) {
	var opened []string
	prev := openURL
	openURL = func(_ context.Context, u string) { opened = append(opened, u) }
	t.Cleanup(func() { openURL = prev })
	a := &App{}

	if err := a.OpenLink("https://example.com/"); err == nil || !strings.Contains(err.Error(), "desktop app") {
		t.Errorf("without the desktop runtime: %v", err)
	}
	a.ctx = context.Background() // stands in for the Wails context; openURL is faked

	good := []string{
		"https://example.com/",
		"http://example.org/a?b=c#d",
		"HTTPS://Example.com/Path",
		"https://xn--80ak6aa92e.com/",
		"http://127.0.0.1:8080/x",
	}
	for _, u := range good {
		if err := a.OpenLink(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
	if strings.Join(opened, " ") != strings.Join(good, " ") {
		t.Fatalf("opened %q, want exactly %q", opened, good)
	}

	opened = nil
	bad := map[string]string{
		"":                                    "empty",
		"javascript:alert(1)":                 "not an http",
		"JaVaScRiPt:alert(1)":                 "not an http",
		" javascript:alert(1)":                "spaces",
		"java\tscript:alert(1)":               "spaces",
		"data:text/html,<script>x</script>":   "not an http",
		"file:///etc/passwd":                  "not an http",
		"vbscript:msgbox(1)":                  "not an http",
		"ftp://example.com/":                  "not an http",
		"mailto:me@example.com":               "not an http",
		"1":                                   "not an http",
		"/etc/passwd":                         "not an http",
		"//evil.example/x":                    "not an http",
		"http:evil.example":                   "not an http",
		"https:///path-only":                  "names no host",
		"http://:80/":                         "names no host",
		"https://bank.example@evil.example":   "user name",
		"https://u:p@evil.example/":           "user name",
		"https://evil.example\\@good.example": "backslash",
		"https://example.com/\x00x":           "control",
		"https://example.com/a b":             "spaces",
		"https://example.com/\u2028":          "spaces",
		"https://example.com/%zz":             "does not parse",
		"https://example.com/" + strings.Repeat("a", maxLinkBytes): "longer than",
	}
	for u, why := range bad {
		err := a.OpenLink(u)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: got %v, want an error saying %q", u, err, why)
		}
		if err != nil && !strings.Contains(err.Error(), "only absolute http:// and https://") {
			t.Errorf("%q: the error does not say what opens: %v", u, err)
		}
	}
	if len(opened) != 0 {
		t.Fatalf("refused links reached the system opener: %q", opened)
	}
}
