package rag

import "strings"

// RefusalToken is the conventional refusal of RAG evaluation sets: a
// model that answers exactly this declines as surely as with
// RefusalSentence.
const RefusalToken = "not in context"

// IsRefusalText reports whether an answer's text is a refusal on its own:
// trimmed, it equals RefusalSentence or RefusalToken, ignoring case (and
// runs of white space inside).
func IsRefusalText(text string) bool {
	t := strings.Join(strings.Fields(text), " ")
	return strings.EqualFold(t, RefusalSentence) || strings.EqualFold(t, RefusalToken)
}

// IsRefusal is the one definition of a refusal, shared by the pipeline and
// the evaluator: the pipeline refused the answer (any refusal reason: no
// evidence, the score gate, missing or invalid citations, an unsupported
// claim, a stop, a failure), or its text is a refusal on its own.
func IsRefusal(text string, reason *string) bool {
	return reason != nil || IsRefusalText(text)
}

// Refused reports whether a is a refusal (IsRefusal).
func (a Answer) Refused() bool { return IsRefusal(a.Answer, a.RefusalReason) }
