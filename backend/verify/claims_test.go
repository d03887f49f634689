package verify

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// texts returns the segments' texts.
func texts(cs []Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

func TestClaimsSentenceSplitting(t *testing.T) {
	cases := []struct {
		name, answer string
		want         []string
	}{
		{"abbreviations and decimals",
			"Footnote packs at most 6 passages, e.g. for a 3.5 GB library [#1]. It uses a score gate of 0.6, i.e. a fused score [#2].",
			[]string{"Footnote packs at most 6 passages, e.g. for a 3.5 GB library [#1].", "It uses a score gate of 0.6, i.e. a fused score [#2]."}},
		{"versions, file names and URLs",
			"It needs WebKitGTK 4.1 and llama3.2:3b from https://ollama.com/library. Settings live in settings.json. Version v1.2.3 is current.",
			[]string{"It needs WebKitGTK 4.1 and llama3.2:3b from https://ollama.com/library.", "Settings live in settings.json.", "Version v1.2.3 is current."}},
		{"lowercase after a period continues",
			"Footnote needs approx. two hundred MB. Then it runs.",
			[]string{"Footnote needs approx. two hundred MB.", "Then it runs."}},
		{"marker after the period belongs to the sentence",
			"Footnote needs 200 MB. [#1] It runs on Linux. [#2][#3]",
			[]string{"Footnote needs 200 MB. [#1]", "It runs on Linux. [#2][#3]"}},
		{"code spans are not split",
			"Run `footnote ingest ~/notes. Then wait.` to index [#1]. Done.",
			[]string{"Run `footnote ingest ~/notes. Then wait.` to index [#1].", "Done."}},
		{"fenced code is one segment",
			"Install it:\n\n```sh\nchmod +x Footnote.AppImage. Then run it.\n./Footnote.AppImage\n```\n\nThat is all [#1].",
			[]string{"Install it:", "```sh\nchmod +x Footnote.AppImage. Then run it.\n./Footnote.AppImage\n```", "That is all [#1]."}},
		{"list items and table rows",
			"Steps:\n- Download the AppImage [#1].\n- Make it executable. Then run it [#1].\n\n| OS | Runtime |\n|---|---|\n| Linux | WebKitGTK 4.1 [#1] |\n| Windows | WebView2 [#2] |",
			[]string{"Steps:", "Download the AppImage [#1].", "Make it executable.", "Then run it [#1].", "| OS | Runtime |", "| Linux | WebKitGTK 4.1 [#1] |", "| Windows | WebView2 [#2] |"}},
		{"hard-wrapped lines stay one sentence",
			"Footnote answers only from passages\nit found in your documents [#1]. If the documents do not contain the answer,\nit says so [#1].",
			[]string{"Footnote answers only from passages\nit found in your documents [#1].", "If the documents do not contain the answer,\nit says so [#1]."}},
		{"Korean endings",
			"Footnote는 약 200MB의 디스크 공간이 필요합니다 [#1]. 색인은 문서 크기의 약 3분의 1입니다 [#1].\n설치 후 바로 실행됩니다\n질문을 입력하세요.",
			[]string{"Footnote는 약 200MB의 디스크 공간이 필요합니다 [#1].", "색인은 문서 크기의 약 3분의 1입니다 [#1].", "설치 후 바로 실행됩니다", "질문을 입력하세요."}},
		{"CJK full stops",
			"東京大学に行きました。雨でした。",
			[]string{"東京大学に行きました。", "雨でした。"}},
		{"heading and quotes",
			"## Summary\n\nIt answers \"I don't know based on the provided documents.\" And it shows the nearest passages [#1].",
			[]string{"## Summary", "It answers \"I don't know based on the provided documents.\"", "And it shows the nearest passages [#1]."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := texts(Claims(c.answer, ""))
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("segments:\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestClaimsOffsets(t *testing.T) {
	answer := "## 설치\n\nFootnote는 200MB가 필요합니다 [#1]. It runs on Linux — fast [#2].\n\n- Ünïcödé item [#1]."
	cs := Claims(answer, "")
	if len(cs) != 4 {
		t.Fatalf("got %d segments %q", len(cs), texts(cs))
	}
	runes := []rune(answer)
	for _, c := range cs {
		if answer[c.Start:c.End] != c.Text {
			t.Errorf("answer[%d:%d] = %q, Text %q", c.Start, c.End, answer[c.Start:c.End], c.Text)
		}
		if string(runes[c.CharStart:c.CharEnd]) != c.Text {
			t.Errorf("runes[%d:%d] = %q, Text %q", c.CharStart, c.CharEnd, string(runes[c.CharStart:c.CharEnd]), c.Text)
		}
		if c.CharEnd-c.CharStart != utf8.RuneCountInString(c.Text) {
			t.Errorf("char range of %q has the wrong length", c.Text)
		}
	}
}

func TestClaimsMarkerCoverage(t *testing.T) {
	type want struct {
		text      string
		markers   []int
		inherited bool
	}
	cases := []struct {
		name, answer string
		want         []want
	}{
		{"a marker covers its own sentence, and the uncited sentences before it in the paragraph",
			"A is one. B is two [#1]. C is three. D is four [#2].",
			[]want{{"A is one.", []int{1}, true}, {"B is two [#1].", []int{1}, false}, {"C is three.", []int{2}, true}, {"D is four [#2].", []int{2}, false}}},
		{"a marker closing the paragraph covers all of it",
			"Footnote runs offline. It needs Ollama. It writes answers [#3].",
			[]want{{"Footnote runs offline.", []int{3}, true}, {"It needs Ollama.", []int{3}, true}, {"It writes answers [#3].", []int{3}, false}}},
		{"sentences after the last marker stay uncited; paragraphs do not share markers",
			"It needs 200 MB [#1]. It also needs WebKitGTK.\n\nIt runs on Windows.",
			[]want{{"It needs 200 MB [#1].", []int{1}, false}, {"It also needs WebKitGTK.", nil, false}, {"It runs on Windows.", nil, false}}},
		{"several markers, in order of first appearance",
			"Search fuses BM25 [#2] and vectors [#1][#2].",
			[]want{{"Search fuses BM25 [#2] and vectors [#1][#2].", []int{2, 1}, false}}},
		{"items of a list inherit the cited lead-in",
			"To install Footnote on Linux [#1]:\n\n1. Download the AppImage.\n2. Make it executable [#2].\n\nIt also runs on macOS.",
			[]want{{"To install Footnote on Linux [#1]:", []int{1}, false}, {"Download the AppImage.", []int{1}, true}, {"Make it executable [#2].", []int{2}, false}, {"It also runs on macOS.", nil, false}}},
		{"markers inside code are not citations",
			"The docs show `cite [#1]` as an example.",
			[]want{{"The docs show `cite [#1]` as an example.", nil, false}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cs := Claims(c.answer, "")
			if len(cs) != len(c.want) {
				t.Fatalf("segments %q, want %d", texts(cs), len(c.want))
			}
			for i, w := range c.want {
				if cs[i].Text != w.text || !reflect.DeepEqual(cs[i].Markers, w.markers) || cs[i].Inherited != w.inherited {
					t.Errorf("segment %d = %q markers %v inherited %v; want %q %v %v", i, cs[i].Text, cs[i].Markers, cs[i].Inherited, w.text, w.markers, w.inherited)
				}
			}
		})
	}
}

func TestClaimsNonClaims(t *testing.T) {
	question := "How much disk space does Footnote need?"
	answer := strings.Join([]string{
		"Here is what the documents say:",
		"",
		"You asked how much disk space Footnote needs.",
		"Footnote needs about 200 MB of disk space [#1].",
		"Based on the provided documents, here is the answer.",
		"Does it need more for the index?",
		"The index takes roughly a third of the size of the text.",
		"",
		"## Sources",
		"",
		"Sources: [#1], [#2]",
		"",
		"I don't know based on the provided documents.",
		"",
		"```sh",
		"du -sh ~/.local/share/footnote",
		"```",
	}, "\n")
	cs := Claims(answer, question)
	got := map[string]string{}
	for _, c := range cs {
		got[c.Text] = c.NonClaim
	}
	want := map[string]string{
		"Here is what the documents say:":                          NotLeadIn,
		"You asked how much disk space Footnote needs.":            NotRestatement,
		"Footnote needs about 200 MB of disk space [#1].":          "",
		"Based on the provided documents, here is the answer.":     NotLeadIn,
		"Does it need more for the index?":                         NotQuestion,
		"The index takes roughly a third of the size of the text.": "",
		"## Sources":          NotHeading,
		"Sources: [#1], [#2]": NotCitationList,
		"I don't know based on the provided documents.": NotRefusal,
		"```sh\ndu -sh ~/.local/share/footnote\n```":    NotCode,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("non-claim flags:\n got %v\nwant %v", got, want)
	}
	// The paragraph's only marker closes "Footnote needs …", so the later
	// checkable sentence stays uncited and counts as such.
	for _, c := range cs {
		if c.Text == "The index takes roughly a third of the size of the text." && !c.Uncited() {
			t.Errorf("%q should be an uncited claim, markers %v", c.Text, c.Markers)
		}
	}
	// A cited sentence is a claim even if it only repeats the question.
	cs = Claims("Footnote needs disk space [#1].", question)
	if cs[0].NonClaim != "" {
		t.Errorf("cited restatement flagged %q", cs[0].NonClaim)
	}
	// A restatement must not add words: a new fact is a claim.
	cs = Claims("Footnote needs disk space for the index.", question)
	if cs[0].NonClaim != "" {
		t.Errorf("sentence with new words flagged %q", cs[0].NonClaim)
	}
}

func TestClaimsPlainText(t *testing.T) {
	cs := Claims("- According to the documents, **Footnote** needs `WebKitGTK 4.1` ([docs](https://x.y)) [#1].", "")
	if want := "Footnote needs WebKitGTK 4.1 (docs)."; cs[0].Plain != want {
		t.Errorf("Plain = %q, want %q", cs[0].Plain, want)
	}
	cs = Claims("| Linux | WebKitGTK 4.1 [#1] |", "")
	if want := "Linux; WebKitGTK 4.1"; cs[0].Plain != want {
		t.Errorf("row Plain = %q, want %q", cs[0].Plain, want)
	}
}

// A path that starts with a dot keeps the space before it: a verbatim
// quote of "apt install ./footnote.deb" is supported by its passage.
func TestClaimsPlainTextKeepsDotPaths(t *testing.T) {
	passage := "Install it with `sudo apt install ./footnote_0.1.0_amd64.deb` on Debian or Ubuntu."
	cs := Claims(passage+" [#1]", "")
	if want := "Install it with sudo apt install ./footnote_0.1.0_amd64.deb on Debian or Ubuntu."; cs[0].Plain != want {
		t.Errorf("Plain = %q, want %q", cs[0].Plain, want)
	}
	res, err := (&Verifier{}).Verify(context.Background(), cs[0].Plain, Passage{N: 1, Text: passage})
	if err != nil || res.Verdict != Supported {
		t.Errorf("verbatim claim with a ./path: %s (%s) %v", res.Verdict, res.Reason, err)
	}
}

// Underscores inside identifiers are not emphasis: a claim quoting
// "window.__pwned" or "MAX__SIZE" keeps them and is still supported by the
// passage it quotes, while __bold__ loses its markers.
func TestClaimsPlainTextKeepsIdentifierUnderscores(t *testing.T) {
	cs := Claims("It sets window.__pwned=1 and MAX__SIZE, in __bold__ [#1].", "")
	if want := "It sets window.__pwned=1 and MAX__SIZE, in bold."; cs[0].Plain != want {
		t.Errorf("Plain = %q, want %q", cs[0].Plain, want)
	}
	passage := "The planted image tag <img src=x onerror=window.__pwned=1> marks it."
	res, err := (&Verifier{}).Verify(context.Background(), Claims(passage+" [#1]", "")[0].Plain, Passage{N: 1, Text: passage})
	if err != nil || res.Verdict != Supported {
		t.Errorf("verbatim claim with an identifier: %s (%s) %v", res.Verdict, res.Reason, err)
	}
}
