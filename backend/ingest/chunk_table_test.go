package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestChunksKeepTableRowsWhole: every chunk of a table starts and ends at a
// row's edge, even when cells end in full stops (which otherwise rate as
// sentence ends, as strong as a line break) and rows are long.
func TestChunksKeepTableRowsWhole(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Staff\n\nIntro text.\n\n| Name | Role | Notes |\n| --- | --- | --- |\n")
	for i := range 40 {
		fmt.Fprintf(&b, "| Person %d | Engineer. | Joined in %d. Works remotely. Likes tea. |\n", i, 2000+i)
	}
	b.WriteString("\nAfter the table.\n")
	text := b.String()
	for _, opts := range []Options{{ChunkTokens: 30, OverlapTokens: 5}, {ChunkTokens: 50, OverlapTokens: -1}, {ChunkTokens: 23}} {
		opts = opts.WithDefaults()
		secs, chunks, err := Split("d", "staff.md", "md", text, wordCounter{}, opts, testNow)
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, text, secs, chunks, wordCounter{}, opts)
		rows := tableRowLines(text)
		for _, c := range chunks {
			start := len(string([]rune(text)[:c.Offsets.Start]))
			end := start + len(c.Text)
			if rows.insideRow(start) || rows.insideRow(end) {
				t.Errorf("chunk size %d: chunk %d cuts a row: %q", opts.ChunkTokens, c.Ordinal, c.Text)
			}
		}
	}
}

func TestTableRowLines(t *testing.T) {
	text := "a | b\n| x | y |\n  | z |  \nend|"
	rl := tableRowLines(text)
	if len(rl.starts) != 2 || text[rl.starts[0]:rl.ends[0]] != "| x | y |" || text[rl.starts[1]:rl.ends[1]] != "  | z |  " {
		t.Fatalf("rows = %+v", rl)
	}
	if !rl.insideRow(rl.starts[0]+3) || rl.insideRow(rl.starts[0]) || rl.insideRow(rl.ends[0]) || rl.insideRow(2) {
		t.Error("insideRow wrong")
	}
}
