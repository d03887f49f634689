package store

import (
	"path/filepath"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
)

// TestNotReservedMatchesCorpusRule checks the SQL form of the reserved-prefix
// rule against corpus.HasReservedPrefix, including ids that hold a colon
// elsewhere or a reserved word without its colon.
func TestNotReservedMatchesCorpusRule(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "f.db"), Options{Dim: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cond, args := notReserved("c.id")
	ids := []string{"snip_0123abcd", "doc_1", "", ":", "chat:", "chat:1", "chat", "chats:1", "xchat:1",
		"draft:9", "tmp:", "gen:x:y", "assistant:42", "assistant", "note:chat:1", "CHAT:1", "a:b", "tmp:chat:"}
	for _, p := range corpus.ReservedPrefixes {
		ids = append(ids, p, p+"x", p[:len(p)-1])
	}
	for _, id := range ids {
		var ok bool
		q := `WITH c(id) AS (VALUES (?)) SELECT ` + cond + ` FROM c`
		if err := s.r.QueryRow(q, append([]any{id}, args...)...).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		if want := !corpus.HasReservedPrefix(id); ok != want {
			t.Errorf("id %q: SQL says eligible=%v, corpus rule says %v", id, ok, want)
		}
	}
}
