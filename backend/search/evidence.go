package search

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/lexical"
)

// Evidence strength is what a passage's own text says about how well it
// matches the query, beyond the retrievers' scores: the query's identifiers
// ("E-4012", "PN-88213-B", "ParseConfig", "parse_header_v2") found verbatim,
// the whole query found as a phrase, and whether the passage leads with an
// identifier — a manual's error list, a part catalogue or an API reference
// names the thing first where it defines it, and only mentions it later
// where it refers to it.

// leadChars is how near the start of a passage an identifier must stand
// for the passage to lead with it: a short heading or a label ("Error
// E-1050:", "Paper tray PT-450 holds …").
const leadChars = 40

// Evidence is a hit's evidence strength, shown in the explain trail.
type Evidence struct {
	// Phrase: the whole query occurs in the passage (case and spacing aside).
	Phrase bool `json:"phrase,omitempty"`
	// Identifiers counts the query's identifiers found verbatim.
	Identifiers int `json:"identifiers,omitempty"`
	// Leads: an identifier of the query occurs within the passage's first
	// leadChars characters.
	Leads bool `json:"leads,omitempty"`
}

// stronger reports whether a is stronger evidence than b.
func (a Evidence) stronger(b Evidence) bool {
	if a.Phrase != b.Phrase {
		return a.Phrase
	}
	if a.Identifiers != b.Identifiers {
		return a.Identifiers > b.Identifiers
	}
	return a.Leads && !b.Leads
}

// identifiers returns the query's identifier-like words, lower-cased:
// codes mixing digits and capitals ("E-1050", "PN-88213-B", "TC-58X"),
// snake_case names ("parse_header_v2") and CamelCase names ("ParseConfig").
// Acronyms ("NFL"), ordinals and measures ("50th", "30-second") are words,
// not identifiers.
func identifiers(query string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(query, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' && r != '_' && r != '.'
	}) {
		f = strings.Trim(f, "-_.")
		if isIdentifier(f) {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

func isIdentifier(w string) bool {
	if len(w) < 3 {
		return false
	}
	var upper, digit, underscore, camel bool
	prevLower := false
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digit = true
		case unicode.IsUpper(r):
			upper = true
			camel = camel || prevLower
		case r == '_':
			underscore = true
		}
		prevLower = unicode.IsLower(r)
	}
	return underscore || digit && upper || camel
}

// evidenceOf measures text's evidence strength for a query with idents.
func evidenceOf(query string, idents []string, text string) Evidence {
	lower := strings.ToLower(text)
	var e Evidence
	if q := strings.Join(strings.Fields(strings.ToLower(query)), " "); len(q) > 0 {
		e.Phrase = strings.Contains(strings.Join(strings.Fields(lower), " "), strings.TrimRight(q, "?.!"))
	}
	for _, id := range idents {
		at := indexWord(lower, id)
		if at < 0 {
			continue
		}
		e.Identifiers++
		if len([]rune(lower[:at])) < leadChars {
			e.Leads = true
		}
	}
	return e
}

// indexWord is the byte offset of the first occurrence of w in s not
// inside a longer word ("pt-450" is not found in "xpt-4500"), or -1.
func indexWord(s, w string) int {
	for from := 0; from <= len(s); {
		i := strings.Index(s[from:], w)
		if i < 0 {
			return -1
		}
		i += from
		end := i + len(w)
		if (i == 0 || !wordRune(s, i, true)) && (end == len(s) || !wordRune(s, end, false)) {
			return i
		}
		from = i + 1
	}
	return -1
}

// wordRune reports whether the rune before (before=true) or at offset i of s
// is a letter or digit.
func wordRune(s string, i int, before bool) bool {
	var r rune
	if before {
		r, _ = utf8.DecodeLastRuneInString(s[:i])
	} else {
		r, _ = utf8.DecodeRuneInString(s[i:])
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// aboutIdentifiers reports whether a query is mostly its identifiers: at
// least half of its searched words come from them ("E-1050", "PT-450
// capacity", "when is ErrUnknownKey returned"). In "What does error 52
// mean on model A-100?" the model name is context, not the subject.
func aboutIdentifiers(query string, idents []string) bool {
	if len(idents) == 0 {
		return false
	}
	n := 0
	for _, id := range idents {
		n += len(lexical.Analyze(id).Words)
	}
	return 2*n >= len(lexical.Analyze(query).Words)
}

// leadWithIdentifiers reorders a lexical list for a query that is about
// identifiers: passages that lead with one come first, keeping the
// retriever's order otherwise. BM25 cannot tell the paragraph that defines
// "E-1050" from one that mentions it in passing; the position can.
func (s *Searcher) leadWithIdentifiers(ctx context.Context, query string, idents []string, list []Candidate) ([]Candidate, error) {
	if !aboutIdentifiers(query, idents) || len(list) < 2 {
		return list, nil
	}
	ids := make([]string, len(list))
	for i, c := range list {
		ids[i] = c.SnippetID
	}
	recs, err := s.Index.Chunks(ctx, ids)
	if err != nil {
		return nil, err
	}
	leads := make(map[string]bool, len(list))
	for _, c := range list {
		leads[c.SnippetID] = evidenceOf("", idents, recs[c.SnippetID].Text).Leads
	}
	out := slices.Clone(list)
	slices.SortStableFunc(out, func(a, b Candidate) int {
		switch {
		case leads[a.SnippetID] == leads[b.SnippetID]:
			return 0
		case leads[a.SnippetID]:
			return -1
		}
		return 1
	})
	for i := range out {
		out[i].Rank = i + 1
	}
	return out, nil
}
