package app

// Opening web links from answers. Model text can repeat any link planted in
// a document, so the UI asks the reader to confirm the full address first,
// and this side opens nothing but an absolute http(s) URL whatever the UI
// sends: file:, javascript:, data: and relative links never reach the
// system opener.

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode"
)

// maxLinkBytes bounds the address handed to the system opener; real web
// links are far shorter, and a huge one is more likely a data smuggle.
const maxLinkBytes = 8 << 10

// OpenLink opens a web link from an answer in the system browser. The UI
// calls it only after the reader confirmed the address shown in full.
func (a *App) OpenLink(rawURL string) error {
	link, err := checkWebLink(rawURL)
	if err != nil {
		return err
	}
	if a.ctx == nil {
		return errors.New("opening links is only available in the desktop app")
	}
	openURL(a.ctx, link)
	return nil
}

// checkWebLink returns raw unchanged when it is an absolute http or https
// URL with a host and without credentials, and an error saying why not
// otherwise. The address opened is exactly the one the reader confirmed.
func checkWebLink(raw string) (string, error) {
	refuse := func(why string) error {
		shown := raw
		if len(shown) > 200 {
			shown = shown[:200] + "…"
		}
		return fmt.Errorf("the link %q was not opened: %s; Footnote opens only absolute http:// and https:// web addresses", shown, why)
	}
	switch {
	case raw == "":
		return "", refuse("it is empty")
	case len(raw) > maxLinkBytes:
		return "", refuse(fmt.Sprintf("it is longer than %d bytes", maxLinkBytes))
	case strings.ContainsFunc(raw, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }):
		return "", refuse("it contains spaces or control characters")
	case strings.Contains(raw, `\`):
		// Browsers read a backslash as a slash, so the host they would
		// see differs from the one parsed here.
		return "", refuse("it contains a backslash")
	}
	lower := strings.ToLower(raw)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return "", refuse("it is not an http or https address")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", refuse(fmt.Sprintf("it does not parse (%v)", err))
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return "", refuse("it is not an http or https address")
	case u.Hostname() == "":
		return "", refuse("it names no host")
	case u.User != nil:
		// user@host hides the real host behind a familiar name.
		return "", refuse("it carries a user name or password")
	}
	return raw, nil
}
