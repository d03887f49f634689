package ollamafake

import (
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
)

func scriptedPrompt(question string) llm.ChatRequest {
	user := "Evidence:\n\n[#1] Install › install/windows\nRun the installer. It adds WebView2.\n\n" +
		"[#2] Install › install/linux\nDownload the AppImage. Then run it.\n\nQuestion: " + question
	return llm.ChatRequest{Messages: []llm.Message{{Role: "system", Content: "rules"}, {Role: "user", Content: user}}}
}

func TestScriptedResponderPlays(t *testing.T) {
	script := map[string]Play{
		"cite":   {Kind: PlayCite, Section: "install/linux"},
		"absent": {Kind: PlayCite, Section: "install/macos"},
		"other":  {Kind: PlayCiteOther, Section: "install/linux"},
		"bare":   {Kind: PlayNoCitation, Section: "install/linux"},
		"bogus":  {Kind: PlayInvalid, Section: "install/linux"},
		"refuse": {Kind: PlayRefuse},
		"lie":    {Kind: PlayHallucinate, Claim: "It runs on phones."},
	}
	r := ScriptedResponder(script, nil)
	want := map[string]string{
		"cite":   "Download the AppImage. [#2]",
		"absent": "Run the installer. [#1]",
		"other":  "Run the installer. [#1]",
		"bare":   "Download the AppImage.",
		"bogus":  "Download the AppImage. [#2] [#5]",
		"refuse": DontKnow,
		"lie":    "It runs on phones. [#1]",
	}
	for q, w := range want {
		if got := strings.Join(r(scriptedPrompt("  "+strings.ToUpper(q)+" ")).Tokens, ""); got != w {
			t.Errorf("%s: got %q, want %q", q, got, w)
		}
	}
	// Unscripted questions fall back to the default responder.
	if got := strings.Join(r(scriptedPrompt("something else")).Tokens, ""); !strings.HasPrefix(got, "Run the installer. [#1]") {
		t.Errorf("fallback reply %q", got)
	}
	// No evidence: the scripted reply is the refusal sentence.
	empty := llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "Question: cite"}}}
	if got := strings.Join(r(empty).Tokens, ""); got != DontKnow {
		t.Errorf("no evidence: %q", got)
	}
}

func TestSampleLibraryScriptCoversEveryKind(t *testing.T) {
	kinds := map[PlayKind]int{}
	for q, p := range SampleLibraryScript() {
		kinds[p.Kind]++
		if p.Kind == PlayCite && p.Section == "" {
			t.Errorf("%q cites no section", q)
		}
	}
	for _, k := range []PlayKind{PlayCite, PlayCiteOther, PlayNoCitation, PlayInvalid, PlayRefuse, PlayHallucinate} {
		if kinds[k] == 0 {
			t.Errorf("the sample script never plays %s", k)
		}
	}
}
