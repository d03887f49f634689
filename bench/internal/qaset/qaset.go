// Package qaset reads the committed extracts of public question-answering
// data (bench/data/<set>/extract.json) that the quality benchmarks run on:
// paragraphs with ids, and questions keyed to the paragraph they were
// written on, some of them marked unanswerable (SQuAD 2.0).
package qaset

import (
	"encoding/json"
	"fmt"
	"os"
)

// Extract is one data set's committed extract.
type Extract struct {
	Set        string      `json:"set"`
	Source     string      `json:"source"`
	Licence    string      `json:"licence"`
	Paragraphs []Paragraph `json:"paragraphs"`
	Questions  []Question  `json:"questions"`
}

// Paragraph is one retrievable unit; its id is the gold key.
type Paragraph struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// Question is asked as written. Paragraph is the id of the paragraph it
// was written on: its gold paragraph, unless Unanswerable says that
// paragraph (and every other) does not answer it.
type Question struct {
	ID           string `json:"id"`
	Question     string `json:"question"`
	Paragraph    string `json:"paragraph"`
	Unanswerable bool   `json:"unanswerable,omitempty"`
}

// Load reads and checks one set's extract.json.
func Load(path string) (Extract, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Extract{}, fmt.Errorf("qa data set %s: %w", path, err)
	}
	var x Extract
	if err := json.Unmarshal(b, &x); err != nil {
		return Extract{}, fmt.Errorf("qa data set %s is not valid JSON: %w", path, err)
	}
	known := map[string]bool{}
	for _, p := range x.Paragraphs {
		known[p.ID] = true
	}
	for _, q := range x.Questions {
		if !known[q.Paragraph] {
			return Extract{}, fmt.Errorf("qa data set %s: question %s names paragraph %q, which the file does not hold", path, q.ID, q.Paragraph)
		}
	}
	if len(x.Paragraphs) == 0 || len(x.Questions) == 0 {
		return Extract{}, fmt.Errorf("qa data set %s holds no paragraphs or no questions", path)
	}
	return x, nil
}

// Answerable is x with its unanswerable questions left out.
func (x Extract) Answerable() Extract {
	out := x
	out.Questions = nil
	for _, q := range x.Questions {
		if !q.Unanswerable {
			out.Questions = append(out.Questions, q)
		}
	}
	return out
}
