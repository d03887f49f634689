package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/engine"
	"github.com/footnote-app/footnote/backend/eval"
	"github.com/footnote-app/footnote/backend/llm/ollamafake"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/bench/internal/qaset"
)

// Reader is the scripted model that answers: the gold-blind extractive
// reader, which sees only the prompt and answers when one sentence of the
// evidence holds MinCover of the question's weighted content words (make
// eval's reader: 0.6), or with Always, a reader that quotes the evidence
// whenever it is given some, so every refusal is the pipeline's own.
type Reader struct {
	MinCover float64 `json:"min_cover"`
	Always   bool    `json:"always,omitempty"`
}

func (r Reader) responder() ollamafake.Responder {
	if r.Always {
		return ollamafake.DefaultResponder
	}
	return ollamafake.ExtractiveResponder(r.MinCover)
}

// Set is what one measurement asks: a library folder, its questions, and
// how a passage is named at the level of the questions' gold ids.
type Set struct {
	Name       string
	Licence    string
	Library    string // folder to ingest
	Passages   int    // paragraphs (extracts); 0 when the library is documents
	Questions  []Question
	passageIDs func(c rag.Citation) []string
}

// Question is one question of a set and the ids of the passages that
// answer it (none for an unanswerable one; an unanswerable extract question
// keeps the paragraph it was written on in WrittenOn).
type Question struct {
	ID           string
	Text         string
	Unanswerable bool
	Gold         []string
	WrittenOn    string
}

// ExtractSet writes x's paragraphs as files of a library under dir, one
// folder a paragraph and the file named by its article, so each document's
// title is the article's as in bench/qa; a passage is named by its paragraph.
func ExtractSet(x qaset.Extract, dir string) (Set, error) {
	lib := filepath.Join(dir, "library")
	paraOf := map[string]string{} // file path -> paragraph id
	for i, p := range x.Paragraphs {
		path := filepath.Join(lib, fmt.Sprintf("p%05d", i), strings.ReplaceAll(p.Title, "/", "_")+".txt")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return Set{}, err
		}
		if err := os.WriteFile(path, []byte(p.Text+"\n"), 0o644); err != nil {
			return Set{}, err
		}
		paraOf[path] = p.ID
	}
	set := Set{Name: x.Set, Licence: x.Licence, Library: lib, Passages: len(x.Paragraphs),
		passageIDs: func(c rag.Citation) []string { return []string{paraOf[c.Path]} }}
	for _, q := range x.Questions {
		sq := Question{ID: q.ID, Text: q.Question, Unanswerable: q.Unanswerable, WrittenOn: q.Paragraph}
		if !q.Unanswerable {
			sq.Gold = []string{q.Paragraph}
		}
		set.Questions = append(set.Questions, sq)
	}
	return set, nil
}

// GoldSet is a library folder with labelled questions in footnote eval's
// gold-set format (backend/eval: qid, q, answerable, gold_ids); a passage is
// named by its section id, snippet id and document id, as eval matches.
func GoldSet(name, library string, qaPaths []string) (Set, error) {
	set := Set{Name: name, Licence: "the project's own", Library: library,
		passageIDs: func(c rag.Citation) []string { return []string{c.SectionID, c.SnippetID, c.DocID} }}
	for _, path := range qaPaths {
		qs, err := eval.LoadQASet(path)
		if err != nil {
			return Set{}, err
		}
		for _, q := range qs {
			set.Questions = append(set.Questions, Question{ID: q.QID, Text: q.Q, Unanswerable: !q.Answerable, Gold: q.GoldIDs})
		}
	}
	return set, nil
}

// Outcome is one question asked in one mode.
type Outcome struct {
	Set          string   `json:"set"`
	Mode         string   `json:"mode"`
	QID          string   `json:"qid"`
	Question     string   `json:"question"`
	Unanswerable bool     `json:"unanswerable"`
	Gold         []string `json:"gold,omitempty"`
	WrittenOn    string   `json:"written_on,omitempty"`
	// Passages name the packed passages, or the nearest on a refusal, best
	// first (paragraph or section ids); GoldTop says the first is gold.
	Passages  []string `json:"passages"`
	GoldTop   bool     `json:"gold_top"`
	Refused   bool     `json:"refused"`
	Grounded  bool     `json:"grounded"`
	CitesGold bool     `json:"cites_gold"`
	// RefusedBy names what refused: a gate signal (refusedBy), "model"
	// when the reader answered the refusal sentence, or the pipeline's
	// refusal reason.
	RefusedBy string               `json:"refused_by,omitempty"`
	Retrieval rag.RetrievalSummary `json:"retrieval"`
}

// Refusals counts the questions one signal refused.
type Refusals struct {
	Answerable int `json:"answerable"`
	// AnswerableGoldTop are the answerable ones whose gold paragraph was
	// the top hit: retrieval had found the answer.
	AnswerableGoldTop int `json:"answerable_gold_top"`
	Unanswerable      int `json:"unanswerable"`
}

// ModeReport is one retrieval mode's figures over a set.
type ModeReport struct {
	Mode         string `json:"mode"`
	Answerable   int    `json:"answerable"`
	Unanswerable int    `json:"unanswerable"`
	// AnsweredGrounded: answerable questions answered (not refused) with
	// a grounded answer; Correct: of those, the ones citing the gold
	// paragraph.
	AnsweredGrounded float64 `json:"answerable_answered_grounded"`
	Correct          float64 `json:"answerable_correct"`
	// OverRefusal and UnderRefusal are the conventional rates: refused
	// answerable / answerable, answered unanswerable / unanswerable.
	OverRefusal  float64 `json:"over_refusal"`
	UnderRefusal float64 `json:"under_refusal"`
	// UnanswerableAnsweredGrounded: unanswerable questions answered with a
	// grounded answer (the quote is real, the question still unanswered).
	UnanswerableAnsweredGrounded float64 `json:"unanswerable_answered_grounded"`
	// GoldTop counts answerable questions whose gold paragraph was the top hit.
	GoldTop   int                  `json:"gold_top"`
	RefusedBy map[string]*Refusals `json:"refused_by"`
}

// SetReport is one data set's figures, every mode measured on one index.
type SetReport struct {
	Set        string       `json:"set"`
	Licence    string       `json:"licence"`
	Reader     Reader       `json:"reader"`
	Paragraphs int          `json:"paragraphs,omitempty"`
	Questions  int          `json:"questions"`
	Modes      []ModeReport `json:"modes"`
}

// Measure ingests set's library once, with the embedding model in folder
// model, into a data folder under dir (removed afterwards), and asks every
// question in each mode through an engine with the default settings (and
// settings, settings.json keys, over them), reader answering. Each outcome
// is also handed to row.
func Measure(ctx context.Context, set Set, model string, reader Reader, modes []string, settings json.RawMessage, dir string, row func(Outcome)) (SetReport, error) {
	home, err := os.MkdirTemp(dir, "footnote-answerability-")
	if err != nil {
		return SetReport{}, err
	}
	defer os.RemoveAll(home)
	fake := ollamafake.New(ollamafake.WithResponder(reader.responder()))
	defer fake.Close()
	rep := SetReport{Set: set.Name, Licence: set.Licence, Reader: reader, Paragraphs: set.Passages, Questions: len(set.Questions)}
	for i, mode := range modes {
		mode = strings.TrimSpace(mode)
		cfg := config.Config{Home: home, Settings: config.Defaults()}
		if len(settings) > 0 {
			if err := json.Unmarshal(settings, &cfg.Settings); err != nil {
				return SetReport{}, fmt.Errorf("-settings: %w", err)
			}
		}
		cfg.Settings.OllamaHost, cfg.Settings.LLMModel, cfg.Settings.RetrievalMode = fake.URL(), ollamafake.DefaultModel, mode
		// An engine closes its embedder: each gets its own.
		emb, err := embed.Load(ctx, model)
		if err != nil {
			return SetReport{}, fmt.Errorf("loading the embedding model: %w", err)
		}
		en, err := engine.New(cfg, engine.WithEmbedder(emb))
		if err != nil {
			emb.Close()
			return SetReport{}, err
		}
		if i == 0 {
			if _, err := en.Ingest(ctx, []string{set.Library}, nil); err != nil {
				en.Close()
				return SetReport{}, fmt.Errorf("ingest: %w", err)
			}
		}
		m, err := askAll(ctx, en, set, mode, row)
		en.Close()
		if err != nil {
			return SetReport{}, err
		}
		rep.Modes = append(rep.Modes, m)
	}
	return rep, nil
}

func askAll(ctx context.Context, en *engine.Engine, set Set, mode string, row func(Outcome)) (ModeReport, error) {
	m := ModeReport{Mode: mode, RefusedBy: map[string]*Refusals{}}
	var grounded, correct, over, under, unansGrounded int
	for _, q := range set.Questions {
		ans, err := en.AskWith(ctx, rag.Request{ID: mode + "-" + q.ID, Question: q.Text}, nil,
			engine.AskOptions{Unrecorded: true, Uncached: true})
		if err != nil {
			return m, fmt.Errorf("%s: question %s: %w", mode, q.ID, err)
		}
		o := Outcome{Set: set.Name, Mode: mode, QID: q.ID, Question: q.Text, Unanswerable: q.Unanswerable, Gold: q.Gold,
			WrittenOn: q.WrittenOn, Refused: ans.Refused(), Grounded: ans.Grounded, RefusedBy: refusedBy(ans), Retrieval: ans.Retrieval}
		isGold := func(c rag.Citation) bool {
			for _, id := range set.passageIDs(c) {
				if id != "" && slices.Contains(q.Gold, id) {
					return true
				}
			}
			return false
		}
		found := slices.Concat(ans.Evidence, ans.Nearest) // one of them is empty
		for _, c := range found {
			o.Passages = append(o.Passages, set.passageIDs(c)[0])
		}
		o.GoldTop = len(found) > 0 && isGold(found[0])
		for _, c := range ans.Citations {
			o.CitesGold = o.CitesGold || isGold(c)
		}
		answeredGrounded := !o.Refused && o.Grounded
		if o.Refused {
			r := m.RefusedBy[o.RefusedBy]
			if r == nil {
				r = &Refusals{}
				m.RefusedBy[o.RefusedBy] = r
			}
			switch {
			case q.Unanswerable:
				r.Unanswerable++
			case o.GoldTop:
				r.AnswerableGoldTop++
				r.Answerable++
			default:
				r.Answerable++
			}
		}
		if q.Unanswerable {
			m.Unanswerable++
			if !o.Refused {
				under++
			}
			if answeredGrounded {
				unansGrounded++
			}
		} else {
			m.Answerable++
			if o.Refused {
				over++
			}
			if answeredGrounded {
				grounded++
				if o.CitesGold {
					correct++
				}
			}
			if o.GoldTop {
				m.GoldTop++
			}
		}
		row(o)
	}
	share := func(n, of int) float64 { return float64(n) / float64(max(of, 1)) }
	m.AnsweredGrounded, m.Correct = share(grounded, m.Answerable), share(correct, m.Answerable)
	m.OverRefusal, m.UnderRefusal = share(over, m.Answerable), share(under, m.Unanswerable)
	m.UnanswerableAnsweredGrounded = share(unansGrounded, m.Unanswerable)
	return m, nil
}

// refusedBy names what refused a: the refusal reason — score_gate and
// unanswerable are the gates (retrieval.refused_by says on which signal;
// delta_s is the ΔS gate of versions before it stopped refusing on its
// own, kept so earlier versions can be measured with this command) —
// "model" when the model answered the refusal sentence, or the reason
// (a missing citation, an unsupported claim). "" when a was answered.
func refusedBy(a rag.Answer) string {
	switch {
	case !a.Refused():
		return ""
	case a.RefusalReason == nil || rag.IsRefusalText(a.Answer) && *a.RefusalReason == rag.RefusalNoCitation:
		return "model"
	case *a.RefusalReason == rag.RefusalUnanswerable && strings.HasPrefix(a.Retrieval.DeltaSGate, "refused"):
		return "delta_s"
	}
	return *a.RefusalReason
}
