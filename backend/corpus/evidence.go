package corpus

import (
	"fmt"
	"time"
)

// NotEvidence is the one statement of what may be evidence. It says why a
// text unit may not be cited as evidence for a question asked at asOf, or
// "" when it may: only corpus text (SourceCorpus, never user notes, model
// output or system text), none of its snippet, document and section ids in
// a reserved namespace (ReservedPrefixes), and nothing created after the
// question (a zero asOf sets no bound). search.Eligible and provenance's
// re-entry audit call it; backend/store renders it as SQL, and a store test
// checks that form against this function row by row.
func NotEvidence(source, snippetID, docID, sectionID string, createdAt, asOf time.Time) string {
	if source != SourceCorpus {
		return fmt.Sprintf("has source %q; only corpus text is evidence", source)
	}
	for _, id := range []string{snippetID, docID, sectionID} {
		if HasReservedPrefix(id) {
			return fmt.Sprintf("uses the reserved id %q", id)
		}
	}
	if !asOf.IsZero() && createdAt.After(asOf) {
		return "was created after the question was asked"
	}
	return ""
}
