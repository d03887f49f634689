package cache

import (
	"fmt"
	"sort"
	"strings"
)

// AskMatch is SameAsk's verdict on two questions.
type AskMatch struct {
	Same bool
	// Shared lists the anchors both questions name, as "kind text"
	// ("number 52", "identifier A-100"), for the cache disclosure.
	Shared []string
	// Differences says why the questions ask different things, one line
	// each ("number 71 only in the second question"); empty when Same.
	Differences []string
}

// SameAsk reports whether two questions ask the same thing, whatever their
// embeddings say. After normalisation (Unicode, case, punctuation,
// politeness, stop words, inflection, Korean particles and endings, a small
// synonym table and one-slip typos of longer words) both must hold the same
// content words, and every anchor of one — number, date or time, code or
// identifier, quoted phrase, name, negation, comparative, unit, scope word,
// modal and question word (who, when, how many, ...) — must appear in the
// other exactly. It is deliberately strict: a wrong "same" serves another
// question's answer, while a wrong "different" only costs a fresh answer.
func SameAsk(a, b string) AskMatch {
	return compareAsks(parseAsk(a), parseAsk(b))
}

func compareAsks(a, b askForm) AskMatch {
	var m AskMatch
	m.Differences = append(m.Differences, missingFrom(a, b, "first")...)
	m.Differences = append(m.Differences, missingFrom(b, a, "second")...)
	if a.negations != b.negations {
		m.Differences = append(m.Differences, fmt.Sprintf("negation: %d in the first question, %d in the second", a.negations, b.negations))
	}
	for k, key := range a.keys {
		if key.kind != kindWord {
			if _, ok := b.keys[k]; ok {
				m.Shared = append(m.Shared, key.kind.String()+" "+key.display)
			}
		}
	}
	for _, q := range a.quoted {
		m.Shared = append(m.Shared, fmt.Sprintf("quoted phrase %q", q))
	}
	if a.negations > 0 && a.negations == b.negations {
		m.Shared = append(m.Shared, "negation")
	}
	sort.Strings(m.Shared)
	sort.Strings(m.Differences)
	m.Same = len(m.Differences) == 0
	return m
}

// missingFrom lists what x names that y does not: anchors must appear in y
// exactly (a name or identifier may appear there as a plain word), content
// words exactly or as a typo of one of y's content words.
func missingFrom(x, y askForm, which string) []string {
	var out []string
	for k, key := range x.keys {
		other, ok := y.keys[k]
		switch {
		case ok && (other.kind == key.kind || key.kind <= kindIdentifier && other.kind <= kindIdentifier):
			continue
		case key.kind == kindWord && typoIn(k, key.display, y):
			continue
		}
		out = append(out, fmt.Sprintf("%s %q only in the %s question", key.kind, key.display, which))
	}
	for _, q := range x.quoted {
		if !strings.Contains(" "+y.flat+" ", " "+q+" ") {
			out = append(out, fmt.Sprintf("quoted phrase %q only in the %s question", q, which))
		}
	}
	return out
}

// typoIn reports whether a content word of y is a typing slip away from
// the word written as display (compared as written, and as stems).
func typoIn(key, display string, y askForm) bool {
	w := strings.ToLower(display)
	for k, other := range y.keys {
		if other.kind != kindWord {
			continue
		}
		if typoOf(w, strings.ToLower(other.display)) || typoOf(key, k) {
			return true
		}
	}
	return false
}
