package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/footnote-app/footnote/backend/verify"
)

// A trace line comes in the conventional minimal shape,
//
//	{"q": "…", "answer": "…", "citations": ["p1#1"]}
//
// with "question" accepted for "q", citations as id strings or objects, or
// a "citations: [a, b]" line inside the answer text, and in Footnote's own
// shape (`footnote trace export`), whose full citation objects sit under
// "cited" beside the conventional id list.

// traceWire is a trace line as written; UnmarshalJSON turns it into a Trace.
type traceWire struct {
	QID           string               `json:"qid"`
	Run           int                  `json:"run"`
	Q             *string              `json:"q"`
	Question      *string              `json:"question"`
	Answer        string               `json:"answer"`
	Grounded      *bool                `json:"grounded"`
	OK            *bool                `json:"ok"`
	RefusalReason *string              `json:"refusal_reason"`
	Citations     json.RawMessage      `json:"citations"`
	Cited         json.RawMessage      `json:"cited"`
	Chunks        json.RawMessage      `json:"chunks"`
	Claims        []verify.ClaimResult `json:"claims"`
}

// UnmarshalJSON reads either trace shape (see above).
func (t *Trace) UnmarshalJSON(data []byte) error {
	var w traceWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*t = Trace{QID: w.QID, Run: w.Run, Answer: w.Answer, RefusalReason: w.RefusalReason, Claims: w.Claims, raw: w.Answer}
	switch {
	case w.Question != nil:
		t.Question = *w.Question
	case w.Q != nil:
		t.Question = *w.Q
	}
	// "ok": false says the system refused the answer, whatever the reason.
	// Footnote's records say it with refusal_reason ("grounded" is false
	// exactly then), so "grounded" alone decides nothing: a Trace written
	// back out keeps its meaning.
	if w.Grounded != nil {
		t.Grounded = *w.Grounded
	}
	if w.OK != nil {
		t.Grounded = *w.OK
		t.PipelineRefused = !*w.OK
	}
	// A citation list under "cited" (Footnote's full objects, which carry
	// section and document ids too) or "citations" is the answer's
	// citations, even when empty; only without one is a "citations: […]"
	// line in the text read, as the conventional scorer does.
	cites := w.Citations
	if present(w.Cited) {
		cites = w.Cited
	}
	var err error
	if t.Citations, err = parseCitations(cites); err != nil {
		return fmt.Errorf("citations: %w", err)
	}
	var inText []TraceCitation
	t.Answer, inText = citationsLine(t.Answer)
	if !present(cites) {
		t.Citations = inText
	}
	if t.Chunks, err = parseChunks(w.Chunks); err != nil {
		return fmt.Errorf("chunks: %w", err)
	}
	return nil
}

// present reports whether a JSON value was given and is not null.
func present(raw json.RawMessage) bool {
	v := bytes.TrimSpace(raw)
	return len(v) > 0 && string(v) != "null"
}

// citationObject is a citation written as an object: Footnote's fields, or
// a conventional {"id": …}.
type citationObject struct {
	TraceCitation
	ID string `json:"id"`
}

func (c citationObject) citation() TraceCitation {
	out := c.TraceCitation
	if out.SnippetID == "" && out.SectionID == "" && out.DocID == "" {
		out.SnippetID = c.ID
	}
	return out
}

// parseCitations reads a list of id strings or citation objects (mixed is
// fine); absent or null is no citations.
func parseCitations(raw json.RawMessage) ([]TraceCitation, error) {
	var items []json.RawMessage
	if !present(raw) {
		return []TraceCitation{}, nil
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("want a list of ids or citation objects: %w", err)
	}
	out := []TraceCitation{}
	for i, item := range items {
		var id string
		if err := json.Unmarshal(item, &id); err == nil {
			if id = strings.TrimSpace(id); id != "" {
				out = append(out, TraceCitation{SnippetID: id})
			}
			continue
		}
		var obj citationObject
		if err := json.Unmarshal(item, &obj); err != nil {
			return nil, fmt.Errorf("citation %d is neither an id string nor an object: %w", i+1, err)
		}
		out = append(out, obj.citation())
	}
	return out, nil
}

// chunkObject is a retrieved passage written as an object: Footnote's
// fields, or a conventional {"id": …}.
type chunkObject struct {
	Item
	ID string `json:"id"`
}

// parseChunks reads the retrieved passages: id strings or objects.
func parseChunks(raw json.RawMessage) ([]Item, error) {
	var items []json.RawMessage
	if !present(raw) {
		return nil, nil
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("want a list of ids or passage objects: %w", err)
	}
	out := make([]Item, 0, len(items))
	for i, item := range items {
		var id string
		if err := json.Unmarshal(item, &id); err == nil {
			out = append(out, conventionalItem(id))
			continue
		}
		var obj chunkObject
		if err := json.Unmarshal(item, &obj); err != nil {
			return nil, fmt.Errorf("chunk %d is neither an id string nor an object: %w", i+1, err)
		}
		if obj.SnippetID == "" && obj.SectionID == "" && obj.DocID == "" {
			c := conventionalItem(obj.ID)
			c.N, c.Text = obj.N, obj.Text
			obj.Item = c
		}
		out = append(out, obj.Item)
	}
	return out, nil
}

// conventionalItem is a passage known by one id of unknown level: the id
// stands at every level, so a gold id equal to it matches whatever level
// its prefix suggests.
func conventionalItem(id string) Item {
	return Item{SnippetID: id, SectionID: id, DocID: id}
}

// citationsPattern is the conventional scorer's citation list in an
// answer's text: "citations: [a, b]" anywhere (in a list item too, "-
// citations: [p1#1]"), case-insensitive; the first one counts.
var citationsPattern = regexp.MustCompile(`(?i)citations\s*:\s*\[([^\]]*)\]`)

// citationsLine takes the first "citations: [a, b]" out of an answer (with
// its line, when the line holds nothing else but a list bullet) and
// returns the answer without it and the ids it lists, split at commas and
// white space. Quotes around an id are dropped.
func citationsLine(answer string) (string, []TraceCitation) {
	loc := citationsPattern.FindStringSubmatchIndex(answer)
	if loc == nil {
		return answer, nil
	}
	var out []TraceCitation
	for _, id := range strings.FieldsFunc(answer[loc[2]:loc[3]], func(r rune) bool { return r == ',' || pySpace(r) }) {
		if id = strings.Trim(id, `"'`); id != "" {
			out = append(out, TraceCitation{SnippetID: id})
		}
	}
	start, end := loc[0], loc[1]
	lineStart := strings.LastIndexByte(answer[:start], '\n') + 1
	lineEnd := len(answer)
	if i := strings.IndexByte(answer[end:], '\n'); i >= 0 {
		lineEnd = end + i
	}
	if strings.Trim(answer[lineStart:start], "-*•+> \t") == "" && strings.TrimSpace(answer[end:lineEnd]) == "" {
		start, end = lineStart, lineEnd
	}
	return strings.TrimSpace(answer[:start] + answer[end:]), out
}
