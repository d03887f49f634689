package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestChunksCarryTitleAndHeadingPath: every chunk is indexed with the
// document title and the headings above it, which are not part of its text
// or offsets (checkInvariants holds the text to its offsets and counts the
// tokens of context and text together).
func TestChunksCarryTitleAndHeadingPath(t *testing.T) {
	text := "# Field Guide\n\nWelcome.\n\n## Install\n\nRun the installer.\n\n### Linux\n\nUse the package.\n\n## Errors\n\nError E-42 means the disk is full.\n"
	opts := Options{ChunkTokens: 64}.WithDefaults()
	secs, chunks, err := Split("d", "/notes/guide.md", "md", text, wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, text, secs, chunks, wordCounter{}, opts)
	want := map[string]string{
		"Use the package.":                   "Field Guide › Install › Linux",
		"Error E-42 means the disk is full.": "Field Guide › Errors",
		"Run the installer.":                 "Field Guide › Install",
		"Welcome.":                           "Field Guide",
	}
	found := 0
	for _, c := range chunks {
		for sentence, ctx := range want {
			if strings.Contains(c.Text, sentence) {
				found++
				if c.Context != ctx {
					t.Errorf("chunk %q: context %q, want %q", c.Text, c.Context, ctx)
				}
				if strings.Contains(c.Text, "›") {
					t.Errorf("chunk text holds its context: %q", c.Text)
				}
			}
		}
	}
	if found != len(want) {
		t.Fatalf("found %d of %d sentences in %d chunks", found, len(want), len(chunks))
	}

	// A text file has no headings: its context is its title (the file name).
	_, chunks, err = Split("d", "/notes/shopping list.txt", "txt", "Milk and bread.", wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || chunks[0].Context != "shopping list" {
		t.Fatalf("text file chunks = %+v", chunks)
	}
}

// TestTableChunksCarryTheirHeaderRow: a chunk that starts inside a table
// carries the table's header row and separator as context, so "Joined in
// 2031" still sits under "Notes"; the chunk holding the header carries only
// the heading path.
func TestTableChunksCarryTheirHeaderRow(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Staff\n\nIntro text.\n\n| Name | Role | Notes |\n| --- | --- | --- |\n")
	for i := range 40 {
		fmt.Fprintf(&b, "| Person %d | Engineer | Joined in %d |\n", i, 2000+i)
	}
	b.WriteString("\nAfter the table.\n")
	text := b.String()
	opts := Options{ChunkTokens: 80, OverlapTokens: 10}.WithDefaults()
	secs, chunks, err := Split("d", "staff.md", "md", text, wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, text, secs, chunks, wordCounter{}, opts)
	header := "| Name | Role | Notes |\n| --- | --- | --- |"
	var mid int
	for _, c := range chunks {
		startsInTable := strings.HasPrefix(c.Text, "| Person")
		switch {
		case strings.Contains(c.Text, "| Name |"):
			if c.Context != "Staff" {
				t.Errorf("chunk with the header: context %q, want only the title", c.Context)
			}
		case startsInTable:
			mid++
			if c.Context != "Staff\n"+header {
				t.Errorf("chunk %d starts inside the table: context %q, want the title and header row", c.Ordinal, c.Context)
			}
		}
	}
	if mid < 2 {
		t.Fatalf("only %d chunks start inside the table; the test needs more rows", mid)
	}
}

// TestWideHeaderRowIsDroppedNotTheText: a header row that would take more
// than a quarter of a chunk's budget is left out of the context.
func TestWideHeaderRowIsDroppedNotTheText(t *testing.T) {
	var b strings.Builder
	b.WriteString("| " + strings.Repeat("Column | ", 12) + "\n|" + strings.Repeat(" --- |", 12) + "\n")
	for i := range 30 {
		fmt.Fprintf(&b, "| r%d |%s\n", i, strings.Repeat(" x |", 11))
	}
	text := b.String()
	opts := Options{ChunkTokens: 40}.WithDefaults()
	secs, chunks, err := Split("d", "wide.md", "md", text, wordCounter{}, opts, testNow)
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, text, secs, chunks, wordCounter{}, opts)
	for _, c := range chunks {
		if strings.Contains(c.Context, "Column") {
			t.Errorf("chunk %d carries a header row of %d tokens in a 40-token chunk", c.Ordinal, wordCounter{}.CountTokens(c.Context))
		}
	}
}

func TestHeadingPathPopsToTheParent(t *testing.T) {
	var p headingPath
	p.enter("A", 1)
	p.enter("B", 2)
	p.enter("C", 3)
	if got := sectionContext("Doc", p.enter("D", 2)); got != "Doc › A › D" {
		t.Errorf("after a level-2 heading: %q", got)
	}
	if got := sectionContext("A", p.enter("A", 1)); got != "A" {
		t.Errorf("a # title repeating the document title: %q", got)
	}
	if got := sectionContext(strings.Repeat("long ", 100), nil); len([]rune(got)) > maxContextRunes+1 {
		t.Errorf("context not clipped: %d runes", len([]rune(got)))
	}
}
