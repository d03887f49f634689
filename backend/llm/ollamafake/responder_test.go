package ollamafake_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/llm"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
)

func TestDefaultResponder(t *testing.T) {
	user := func(s string) llm.Message { return llm.Message{Role: "user", Content: s} }
	tests := []struct {
		name string
		msgs []llm.Message
		want string
	}{
		{
			name: "two blocks with header lines",
			msgs: []llm.Message{
				{Role: "system", Content: "Answer only from the evidence. [#9] is not evidence here."},
				user("Evidence:\n[#1] Install guide › Linux\nTo install Footnote on Linux, download the AppImage. Then mark it executable.\n\n" +
					"[#2] Install guide › Windows\nOn Windows, run the installer! It needs no admin rights.\n\nQuestion: How do I install on Linux?"),
			},
			want: "To install Footnote on Linux, download the AppImage. [#1] It also notes: On Windows, run the installer! [#2]",
		},
		{
			name: "one-line blocks as in the recorded prompt",
			msgs: []llm.Message{user("Answer only from the context and cite sources as [#n].\n\n[#1] The Eiffel Tower is in Paris and was completed in 1889.\n[#2] The Colosseum is in Rome.\n\nQuestion: When was the Eiffel Tower completed?")},
			want: "The Eiffel Tower is in Paris and was completed in 1889. [#1] It also notes: The Colosseum is in Rome. [#2]",
		},
		{
			name: "marker alone, header on the next line, passage wraps",
			msgs: []llm.Message{user("[#1]\nRelease notes › 2.0\nVersion 2.0 adds\nPDF support. Nothing else changed.\nQuestion: What is new?")},
			want: "Version 2.0 adds PDF support. [#1]",
		},
		{
			name: "a second passage holding only a heading is not quoted",
			msgs: []llm.Message{user("[#1] Install › install/install/linux\n## Linux\n\nTo install on Linux, run the AppImage.\n\n[#2] Install › install/install\n# Install\n\nQuestion: How do I install on Linux?")},
			want: "To install on Linux, run the AppImage. [#1]",
		},
		{
			name: "passage without sentence end",
			msgs: []llm.Message{user("[#1] Notes\nversion 3.1 (beta)\n\nQuestion: which version?")},
			want: "version 3.1 (beta). [#1]",
		},
		{
			name: "a sentence cut by its chunk's end stays a claim of its own",
			msgs: []llm.Message{user("[#1] Ferry\nThe timetable must not hide the\n\n[#2] Ferry\nwords after it. Boats leave at noon.\n\nQuestion: Where is the timetable?")},
			want: "The timetable must not hide the. [#1] It also notes: words after it. [#2]",
		},
		{
			name: "no evidence",
			msgs: []llm.Message{user("Question: What is the capital of Mars?")},
			want: ollamafake.DontKnow,
		},
		{
			name: "evidence only in an earlier user turn",
			msgs: []llm.Message{user("[#1] Old\nOld passage."), {Role: "assistant", Content: "ok"}, user("And now?")},
			want: ollamafake.DontKnow,
		},
		{
			name: "no user message",
			msgs: []llm.Message{{Role: "wizard", Content: "[#1] x\ny."}},
			want: ollamafake.DontKnow,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reply := ollamafake.DefaultResponder(llm.ChatRequest{Model: "m", Messages: tc.msgs})
			if got := strings.Join(reply.Tokens, ""); got != tc.want {
				t.Errorf("reply = %q\nwant    %q", got, tc.want)
			}
			if len(reply.Tokens) < 2 {
				t.Errorf("want word-by-word tokens, got %q", reply.Tokens)
			}
		})
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"To install it", []string{"To", " install", " it"}},
		{"  lead and trail \n", []string{"  lead", " and", " trail", " \n"}},
		{"line\nbreak [#1]", []string{"line", "\nbreak", " [#1]"}},
		{"naïve café", []string{"naïve", " café"}},
	}
	for _, tc := range tests {
		got := ollamafake.Words(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("Words(%q) does not reassemble", tc.in)
		}
	}
}

func TestListenRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:11434", ":11434", "example.com:1"} {
		if srv, err := ollamafake.Listen(ollamafake.WithAddr(addr)); err == nil {
			srv.Close()
			t.Errorf("Listen(%q) succeeded, want refusal", addr)
		}
	}
	srv, err := ollamafake.Listen(ollamafake.WithAddr("localhost:0"))
	if err != nil {
		t.Fatalf("Listen(localhost:0): %v", err)
	}
	srv.Close()
}

func TestDefaultResponderSkipsHeadings(t *testing.T) {
	req := llm.ChatRequest{Messages: []llm.Message{{Role: "user",
		Content: "Evidence:\n\n[#1] Install › install/linux\n## Linux\n\nTo install, run it. Then more.\n\nQuestion: how?"}}}
	got := strings.Join(ollamafake.DefaultResponder(req).Tokens, "")
	if got != "To install, run it. [#1]" {
		t.Fatalf("reply = %q, want the first sentence after the heading", got)
	}
}

func TestMisquotingResponderChangesOnlyTheNamedText(t *testing.T) {
	ask := func(evidence string) string {
		req := llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "Evidence:\n\n" + evidence + "\n\nQuestion: how big?"}}}
		return strings.Join(ollamafake.MisquotingResponder("20 MB", "40 MB")(req).Tokens, "")
	}
	if got := ask("[#1] Limits › Uploads\nThe upload limit is 20 MB per file. Larger files are refused."); got != "The upload limit is 40 MB per file. [#1]" {
		t.Fatalf("reply = %q, want the first sentence with 40 MB and its citation", got)
	}
	if got := ask("[#1] Install › Linux\nDownload the AppImage. Then run it."); got != "Download the AppImage. [#1]" {
		t.Fatalf("reply without the text = %q, want the default reply unchanged", got)
	}
}

func TestMisquotingTwiceMisreadsBoth(t *testing.T) {
	model := ollamafake.Misquoting(ollamafake.MisquotingResponder("20 MB", "40 MB"), "1998", "2001")
	req := llm.ChatRequest{Messages: []llm.Message{{Role: "user", Content: "Evidence:\n\n" +
		"[#1] Office › Opening\nThe office opened in 1998. It is old.\n\n[#2] Limits › Uploads\nThe upload limit is 20 MB per file.\n\nQuestion: when?"}}}
	got := strings.Join(model(req).Tokens, "")
	if want := "The office opened in 2001. [#1] It also notes: The upload limit is 40 MB per file. [#2]"; got != want {
		t.Fatalf("reply = %q, want %q", got, want)
	}
}
