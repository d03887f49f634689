package facts

import (
	"strings"
	"testing"
)

// FuzzRead: any text reads without panicking, and every token, date and
// quantity found points at its own text.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"The 14-year-old won 5-4 on Friday, June 28, 2019.", "2½ sacks, two thirds, $3 million",
		"`code 12` 3분의 1을, 절반을 #1 1-of-14 '80s", "Published 2016-08-24T10:00 19.08.2019 6/28/19", "TechCrunch (Tech Crunch)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Read(s)
		for _, tok := range r.Tokens {
			if tok.Start < 0 || tok.End() > len(s) {
				t.Fatalf("token %q at %d outside %q", tok.Text, tok.Start, s)
			}
		}
		for _, d := range r.Dates {
			if d.Start < 0 || d.End > len(s) || d.Start > d.End || d.Text != s[d.Start:d.End] {
				t.Fatalf("date %+v does not point at its text in %q", d, s)
			}
		}
		for _, q := range r.Quantities {
			if q.Start < 0 || q.End > len(s) || q.Start > q.End {
				t.Fatalf("quantity %+v outside %q", q, s)
			}
		}
		x := NewNameIndex(s)
		for _, w := range strings.Fields(s) {
			x.Has(w)
			x.HasPhrase(w)
		}
	})
}
