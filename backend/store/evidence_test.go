package store

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/footnote-app/footnote/backend/corpus"
)

// TestEvidenceSQLMatchesPredicate checks the SQL form of the evidence rule
// (Filter.where) against the one Go predicate, corpus.NotEvidence, row by
// row: every source, ids inside and outside the reserved namespaces (and
// ones that only look reserved), creation times around the question's
// instant, with and without a time bound.
func TestEvidenceSQLMatchesPredicate(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, testDim)
	asOf := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	sources := []string{corpus.SourceCorpus, corpus.SourceUser, corpus.SourceModel, corpus.SourceSystem, ""}
	type ids struct{ snippet, doc, section string }
	idCases := []ids{
		{"s", "d", "sec"},
		{"chat:s", "d", "sec"},
		{"s", "draft:d", "sec"},
		{"s", "d", "gen:sec"},
		{"tmp:s", "assistant:d", "chat:sec"},
		{"note:s", "doc:d", "sec:x"},  // a colon, but not a reserved namespace
		{"chats", "draftd", "gensec"}, // reserved words without their colon
		{"x chat:s", "d", "sec"},      // the prefix not at the start
		{"CHAT:s", "Draft:d", "sec"},  // another case
		{"chat:a:b", "d", "sec"},      // several colons
		{"s:", "d:", "sec"},           // a colon at the end
		{"assistant:", "d", "sec"},    // the bare prefix
		{"", "d", "sec"},              // empty id
	}
	created := []time.Time{asOf.Add(-time.Hour), asOf, asOf.Add(time.Nanosecond), asOf.Add(time.Hour)}

	type row struct {
		snippet, doc, section, source string
		createdAt                     time.Time
	}
	var rows []row
	n := 0
	for _, src := range sources {
		for _, ic := range idCases {
			for _, at := range created {
				n++
				// Every snippet id must be unique; the suffix keeps each
				// case's prefix (and emptiness of the rest) intact.
				rows = append(rows, row{ic.snippet + fmt.Sprint(n), ic.doc, ic.section, src, at})
			}
		}
	}
	for i, r := range rows {
		_, err := s.w.ExecContext(ctx, `INSERT INTO chunks (snippet_id, doc_id, section_id, ordinal, text, char_start, char_end,
			unit, tokens, pre, post, page, source, created_at, embed_model) VALUES (?, ?, ?, ?, ?, 0, 1, 'para', 1, 0, 0, 0, ?, ?, 'm')`,
			r.snippet, r.doc, r.section, i, "text "+r.snippet, r.source, r.createdAt.UnixNano())
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, bound := range []time.Time{asOf, {}} {
		where, args := Filter{AsOf: bound}.where()
		got := map[string]bool{}
		res, err := s.r.QueryContext(ctx, `SELECT snippet_id FROM chunks c WHERE `+where, args...)
		if err != nil {
			t.Fatal(err)
		}
		for res.Next() {
			var id string
			if err := res.Scan(&id); err != nil {
				t.Fatal(err)
			}
			got[id] = true
		}
		if err := res.Close(); err != nil {
			t.Fatal(err)
		}
		eligible := 0
		for _, r := range rows {
			reason := corpus.NotEvidence(r.source, r.snippet, r.doc, r.section, r.createdAt, bound)
			if want := reason == ""; got[r.snippet] != want {
				t.Errorf("asOf %v: %+v: SQL says evidence=%v, corpus.NotEvidence says %q", bound, r, got[r.snippet], reason)
			}
			if reason == "" {
				eligible++
			}
		}
		// The table must exercise both answers, and the time bound must matter.
		if eligible == 0 || eligible == len(rows) {
			t.Fatalf("asOf %v: %d of %d rows eligible; the cases do not exercise the rule", bound, eligible, len(rows))
		}
		if bound.IsZero() && !slices.ContainsFunc(rows, func(r row) bool {
			return r.createdAt.After(asOf) && corpus.NotEvidence(r.source, r.snippet, r.doc, r.section, r.createdAt, bound) == ""
		}) {
			t.Fatal("without a bound, no late row was eligible")
		}
	}
}
