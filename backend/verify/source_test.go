package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/verify"
)

// footnoteDetector knows the answer pipeline's real system prompt.
func footnoteDetector() *verify.Detector {
	return verify.NewDetector(rag.BuildMessages("", nil)[0].Content)
}

func TestDetectModelMadeText(t *testing.T) {
	d := footnoteDetector()
	cases := []struct {
		name, text, source, reason string
	}{
		{"the issue's chat_transcript.txt",
			"user: how big can uploads be?\nassistant: The upload limit is 40 MB [#1]. citations: [#1]\n",
			corpus.SourceModel, "chat transcript"},
		{"an assistant turn with markers only",
			"assistant: Footnote needs 200 MB [#1] and runs on Linux [#2].",
			corpus.SourceModel, "an assistant turn with citations"},
		// The re-entry specification's minimal case: a note holding the
		// model's earlier answer (its chunk chat:42), saved as a file.
		{"the re-entry specification's note",
			"(assistant) X supports null keys. citations: [p1#1]",
			corpus.SourceModel, "an assistant turn with citations"},
		{"a bare citations line",
			"X supports null keys.\ncitations: [p1#1]\n",
			corpus.SourceModel, "citations: [p1#1]"},
		{"a bulleted answer template",
			"- X supports null keys.\n- citations: [p1#1, p2#1]\n",
			corpus.SourceModel, "template"},
		{"an assistant summary",
			"assistant_summary: the user asked whether X supports null keys; it does.\n",
			corpus.SourceModel, "assistant_summary"},
		{"a note citing a chat message",
			"notes: X supports null keys (see [chat:42]).\n",
			corpus.SourceModel, "chat:42"},
		{"a chunk record of model text",
			`{"id":"chat:42","source":"model","text":"X supports null keys."}`,
			corpus.SourceModel, "chat:42"},
		{"a citation of an internal note",
			"X supports null keys [notes:12].",
			corpus.SourceModel, "notes:12"},
		{"a Notes: paragraph",
			"Notes: install the runtime before the first start.\nThe installer asks for no password.\n",
			corpus.SourceCorpus, ""},
		{"the template shown as code",
			"Answers end with a line like `citations: [p1#1]`, and in full:\n\n```\n- claim\n- citations: [p1#1]\n```\n",
			corpus.SourceCorpus, ""},
		{"a document naming the reserved prefixes",
			"Ids starting with chat:, draft: or tmp: are never evidence [see the guard].\n",
			corpus.SourceCorpus, ""},
		{"an aside in parentheses",
			"(AI) systems are discussed in chapter 2.\nThey cite sources.\n",
			corpus.SourceCorpus, ""},
		{"a chat with bold role tags",
			"**User:** What does Footnote need?\n\n**Assistant:** About 200 MB of disk space.\n",
			corpus.SourceModel, "chat transcript"},
		{"Footnote's Markdown export",
			"## How much disk space?\n\nFootnote needs about 200 MB [^1].\n\n[^1]: \"It needs about 200 MB of disk space\" — Installing Footnote, § install\n\n*Answered by Footnote (model llama3.2:3b, 2024-05-01T10:00:00.000Z).*\n",
			corpus.SourceModel, "exported from Footnote"},
		{"ask --json output",
			`{"answer": "Footnote needs 200 MB [#1].", "grounded": true, "citations": [{"n": 1, "snippet_id": "snip_1"}]}`,
			corpus.SourceModel, "stored answer"},
		{"a pasted answer",
			"Footnote needs about 200 MB of disk space [#1]. It runs on Linux, macOS and Windows [#1]. Answers come from Ollama [#2].",
			corpus.SourceModel, "most sentences end with [#n]"},
		{"the prompt pasted into a note",
			"My notes on the prompt:\n\nCite every claim with the number of the passage that supports it, written exactly as [#n] (for example [#1] or [#2]).",
			corpus.SourceModel, "prompt"},
		{"the user's side of a chat",
			"user: what does Footnote need?\nuser: and on Windows?\nuser: thanks\n",
			corpus.SourceUser, "user's side"},
		{"a document about chat formats",
			"Chat APIs take a list of messages. Each has a role such as user or assistant, for example:\n\n```json\n{\"role\": \"user\", \"content\": \"hi\"}\n```\n",
			corpus.SourceCorpus, ""},
		{"a config file with a user key",
			"server:\n  host: example.org\n  user: deploy\n  port: 22\nsystem: linux\nbackup: nightly\nretention: 14\n",
			corpus.SourceCorpus, ""},
		{"the refusal sentence quoted in a manual",
			"It answers \"I don't know based on the provided documents.\" and shows the nearest passages it found.",
			corpus.SourceCorpus, ""},
	}
	for _, c := range cases {
		got := d.Detect(c.text)
		if got.Source != c.source || !strings.Contains(got.Reason, c.reason) {
			t.Errorf("%s: %+v, want source %s with reason containing %q", c.name, got, c.source, c.reason)
		}
	}
}

// Footnote's own README and docs explain answers, markers, the trace
// format and the citations: line; they are documents all the same.
func TestDetectProjectDocsAreDocuments(t *testing.T) {
	d := footnoteDetector()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join("..", "..", "README.md"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Detect(string(b)); got.Source != corpus.SourceCorpus {
			t.Errorf("%s detected as %+v", f, got)
		}
	}
}

// Every file of the sample library is an ordinary document, although
// several explain citation markers and quote the refusal sentence.
func TestDetectSampleLibraryIsDocuments(t *testing.T) {
	d := footnoteDetector()
	files, err := filepath.Glob(filepath.Join("..", "..", "sample", "library", "*"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if ext := filepath.Ext(f); ext != ".md" && ext != ".txt" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Detect(string(b)); got.Source != corpus.SourceCorpus {
			t.Errorf("%s detected as %+v", filepath.Base(f), got)
		}
		n++
	}
	if n < 8 {
		t.Errorf("only %d sample files checked", n)
	}
}
