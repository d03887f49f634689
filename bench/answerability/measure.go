package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/footnote-app/footnote/backend/config"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/engine"
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

// Outcome is one question asked in one mode.
type Outcome struct {
	Set          string `json:"set"`
	Mode         string `json:"mode"`
	QID          string `json:"qid"`
	Question     string `json:"question"`
	Unanswerable bool   `json:"unanswerable"`
	// Paragraph is the paragraph the question was written on; TopHit the
	// paragraph of the best passage retrieval found (packed first, or first
	// of the nearest on a refusal).
	Paragraph string `json:"paragraph"`
	TopHit    string `json:"top_hit"`
	// Passages are the paragraphs of the packed passages, or of the
	// nearest on a refusal, best first.
	Passages  []string `json:"passages"`
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
	Paragraphs int          `json:"paragraphs"`
	Questions  int          `json:"questions"`
	Modes      []ModeReport `json:"modes"`
}

// Measure writes x's paragraphs as files of a library under dir (removed
// afterwards), ingests them once with the embedding model in folder model,
// and asks every question in each mode through an engine with the default
// settings, reader answering. Each outcome is also handed to row.
func Measure(ctx context.Context, x qaset.Extract, model string, reader Reader, modes []string, settings json.RawMessage, dir string, row func(Outcome)) (SetReport, error) {
	tmp, err := os.MkdirTemp(dir, "footnote-answerability-")
	if err != nil {
		return SetReport{}, err
	}
	defer os.RemoveAll(tmp)
	lib := filepath.Join(tmp, "library")
	paraOf := map[string]string{} // file path -> paragraph id
	for i, p := range x.Paragraphs {
		// One folder a paragraph, the file named by its article, so the
		// document's title is the article's as in bench/qa.
		path := filepath.Join(lib, fmt.Sprintf("p%05d", i), strings.ReplaceAll(p.Title, "/", "_")+".txt")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return SetReport{}, err
		}
		if err := os.WriteFile(path, []byte(p.Text+"\n"), 0o644); err != nil {
			return SetReport{}, err
		}
		paraOf[path] = p.ID
	}
	fake := ollamafake.New(ollamafake.WithResponder(reader.responder()))
	defer fake.Close()
	home := filepath.Join(tmp, "home")
	rep := SetReport{Set: x.Set, Licence: x.Licence, Reader: reader, Paragraphs: len(x.Paragraphs), Questions: len(x.Questions)}
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
			if _, err := en.Ingest(ctx, []string{lib}, nil); err != nil {
				en.Close()
				return SetReport{}, fmt.Errorf("ingest: %w", err)
			}
		}
		m, err := askAll(ctx, en, x, mode, paraOf, row)
		en.Close()
		if err != nil {
			return SetReport{}, err
		}
		rep.Modes = append(rep.Modes, m)
	}
	return rep, nil
}

func askAll(ctx context.Context, en *engine.Engine, x qaset.Extract, mode string, paraOf map[string]string, row func(Outcome)) (ModeReport, error) {
	m := ModeReport{Mode: mode, RefusedBy: map[string]*Refusals{}}
	var grounded, correct, over, under, unansGrounded int
	for _, q := range x.Questions {
		ans, err := en.AskWith(ctx, rag.Request{ID: mode + "-" + q.ID, Question: q.Question}, nil,
			engine.AskOptions{Unrecorded: true, Uncached: true})
		if err != nil {
			return m, fmt.Errorf("%s: question %s: %w", mode, q.ID, err)
		}
		o := Outcome{Set: x.Set, Mode: mode, QID: q.ID, Question: q.Question, Unanswerable: q.Unanswerable,
			Paragraph: q.Paragraph, Refused: ans.Refused(), Grounded: ans.Grounded, RefusedBy: refusedBy(ans), Retrieval: ans.Retrieval}
		for _, list := range [][]rag.Citation{ans.Evidence, ans.Nearest} {
			for _, c := range list {
				o.Passages = append(o.Passages, paraOf[c.Path])
			}
		}
		if len(o.Passages) > 0 {
			o.TopHit = o.Passages[0]
		}
		for _, c := range ans.Citations {
			o.CitesGold = o.CitesGold || paraOf[c.Path] == q.Paragraph
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
			case o.TopHit == q.Paragraph:
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
			if o.TopHit == q.Paragraph {
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

// refusedBy names what refused a: the gate signal, "model" when the
// answer's text is the refusal sentence, or else the refusal reason
// (a missing citation, an unsupported claim). "" when a was answered.
func refusedBy(a rag.Answer) string {
	switch {
	case !a.Refused():
		return ""
	case a.RefusalReason == nil || rag.IsRefusalText(a.Answer) && *a.RefusalReason == rag.RefusalNoCitation:
		return "model"
	case *a.RefusalReason == rag.RefusalUnanswerable && strings.HasPrefix(a.Retrieval.DeltaSGate, "refused"):
		return "delta_s"
	case *a.RefusalReason == rag.RefusalUnanswerable:
		return "rare_terms"
	}
	return *a.RefusalReason
}
