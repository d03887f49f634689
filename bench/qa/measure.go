package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	sqlite_vec "github.com/asg017/sqlite-vec-go-bindings/cgo"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/embed"
	"github.com/footnote-app/footnote/backend/search"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/bench/internal/qaset"
)

// Scores are one mode's figures over a set's questions.
type Scores struct {
	Mode       string  `json:"mode"`
	RecallAt1  float64 `json:"recall_at_1"`
	RecallAt5  float64 `json:"recall_at_5"`
	RecallAt10 float64 `json:"recall_at_10"`
	MRRAt10    float64 `json:"mrr_at_10"`
}

// SetReport is one data set's figures, every mode measured in the same run.
type SetReport struct {
	Set        string   `json:"set"`
	Licence    string   `json:"licence"`
	Paragraphs int      `json:"paragraphs"`
	Questions  int      `json:"questions"`
	Modes      []Scores `json:"modes"`
}

// tally accumulates recall@1/5/10 and MRR@10 from ranked paragraph ids.
type tally struct {
	mode             string
	n                int
	r1, r5, r10, mrr float64
}

func (t *tally) add(ranked []string, gold string) {
	t.n++
	for i, id := range ranked[:min(len(ranked), 10)] {
		if id != gold {
			continue
		}
		if i < 1 {
			t.r1++
		}
		if i < 5 {
			t.r5++
		}
		t.r10++
		t.mrr += 1 / float64(i+1)
		return
	}
}

func (t *tally) scores() Scores {
	n := float64(max(t.n, 1))
	return Scores{Mode: t.mode, RecallAt1: t.r1 / n, RecallAt5: t.r5 / n, RecallAt10: t.r10 / n, MRRAt10: t.mrr / n}
}

// Measure ingests x into a fresh index under dir (removed afterwards) and
// scores every mode and baseline on its questions.
func Measure(ctx context.Context, x qaset.Extract, emb embed.Embedder, dir string) (SetReport, error) {
	tmp, err := os.MkdirTemp(dir, "footnote-qa-")
	if err != nil {
		return SetReport{}, err
	}
	defer os.RemoveAll(tmp)
	texts := make([]string, len(x.Paragraphs))
	for i, p := range x.Paragraphs {
		texts[i] = p.Text
	}
	vecs, err := emb.EmbedPassages(ctx, texts)
	if err != nil {
		return SetReport{}, fmt.Errorf("embedding paragraphs: %w", err)
	}
	dim := emb.Info().Dim
	st, err := store.Open(filepath.Join(tmp, "index.db"), store.Options{Dim: dim})
	if err != nil {
		return SetReport{}, err
	}
	defer st.Close()
	paraOf := map[string]string{} // snippet id -> paragraph id
	created := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range x.Paragraphs {
		docID := fmt.Sprintf("doc_%05d", i)
		id := corpus.SnippetID(docID, "s", p.Text, 0)
		paraOf[id] = p.ID
		doc := corpus.Document{DocID: docID, Path: "/qa/" + docID + ".txt", Title: p.Title, Format: "txt", Rev: "r",
			Chunks: []corpus.Chunk{{SnippetID: id, DocID: docID, SectionID: "s", Text: p.Text,
				Offsets: corpus.Offsets{Unit: corpus.UnitChar}, Source: corpus.SourceCorpus, CreatedAt: created}}}
		if err := st.PutDocument(ctx, doc, vecs[i:i+1], emb.Info().Name()); err != nil {
			return SetReport{}, fmt.Errorf("storing paragraph %s: %w", p.ID, err)
		}
	}
	base, err := openBaselines(x.Paragraphs, vecs, dim)
	if err != nil {
		return SetReport{}, err
	}
	defer base.Close()

	s := &search.Searcher{Index: st, Embedder: emb, TopK: 20}
	modes := []string{search.ModeLexical, search.ModeVector, search.ModeHybrid}
	tallies := map[string]*tally{}
	order := append(append([]string{}, modes...), "fts5-bm25-or", "fts5-porter-or", "sqlite-vec-knn")
	for _, m := range order {
		tallies[m] = &tally{mode: m}
	}
	for _, q := range x.Questions {
		for _, mode := range modes {
			res, err := s.Search(ctx, q.Question, search.Options{Mode: mode, Limit: 10, NoRerank: true})
			if err != nil {
				return SetReport{}, fmt.Errorf("%s search for question %s: %w", mode, q.ID, err)
			}
			var ranked []string
			for _, h := range res.Hits {
				ranked = append(ranked, paraOf[h.SnippetID])
			}
			tallies[mode].add(ranked, q.Paragraph)
		}
		for _, table := range []string{"plain", "porter"} {
			ranked, err := base.bm25OR(ctx, table, q.Question, x.Paragraphs)
			if err != nil {
				return SetReport{}, fmt.Errorf("FTS5 baseline for question %s: %w", q.ID, err)
			}
			name := map[string]string{"plain": "fts5-bm25-or", "porter": "fts5-porter-or"}[table]
			tallies[name].add(ranked, q.Paragraph)
		}
		qv, err := emb.EmbedQuery(ctx, q.Question)
		if err != nil {
			return SetReport{}, err
		}
		ranked, err := base.knn(ctx, qv, x.Paragraphs)
		if err != nil {
			return SetReport{}, fmt.Errorf("sqlite-vec baseline for question %s: %w", q.ID, err)
		}
		tallies["sqlite-vec-knn"].add(ranked, q.Paragraph)
	}
	r := SetReport{Set: x.Set, Licence: x.Licence, Paragraphs: len(x.Paragraphs), Questions: len(x.Questions)}
	for _, m := range order {
		r.Modes = append(r.Modes, tallies[m].scores())
	}
	return r, nil
}

// baselines are stock SQLite indexes over the same paragraphs, outside the
// store: what Footnote's retrieval should beat.
type baselines struct{ db *sql.DB }

func openBaselines(paras []qaset.Paragraph, vecs [][]float32, dim int) (*baselines, error) {
	sqlite_vec.Auto()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one in-memory database
	stmts := []string{
		`CREATE VIRTUAL TABLE plain USING fts5(text, tokenize='unicode61 remove_diacritics 2')`,
		`CREATE VIRTUAL TABLE porter USING fts5(text, tokenize='porter unicode61 remove_diacritics 2')`,
		fmt.Sprintf(`CREATE VIRTUAL TABLE vec USING vec0(embedding float[%d] distance_metric=cosine)`, dim),
	}
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("baseline table: %w", err)
		}
	}
	for i, p := range paras {
		blob, err := sqlite_vec.SerializeFloat32(vecs[i])
		if err != nil {
			db.Close()
			return nil, err
		}
		for _, q := range []string{`INSERT INTO plain(rowid, text) VALUES (?, ?)`, `INSERT INTO porter(rowid, text) VALUES (?, ?)`} {
			if _, err := db.Exec(q, i+1, p.Text); err != nil {
				db.Close()
				return nil, err
			}
		}
		if _, err := db.Exec(`INSERT INTO vec(rowid, embedding) VALUES (?, ?)`, i+1, blob); err != nil {
			db.Close()
			return nil, err
		}
	}
	return &baselines{db: db}, nil
}

func (b *baselines) Close() error { return b.db.Close() }

// bm25OR ranks by FTS5's bm25 over the OR of the question's terms.
func (b *baselines) bm25OR(ctx context.Context, table, question string, paras []qaset.Paragraph) ([]string, error) {
	var terms []string
	for _, w := range strings.FieldsFunc(question, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		terms = append(terms, `"`+w+`"`)
	}
	if len(terms) == 0 {
		return nil, nil
	}
	rows, err := b.db.QueryContext(ctx, fmt.Sprintf(`SELECT rowid FROM %s WHERE %s MATCH ? ORDER BY bm25(%s) LIMIT 10`, table, table, table),
		strings.Join(terms, " OR "))
	if err != nil {
		return nil, err
	}
	return paragraphIDs(rows, paras)
}

// knn is sqlite-vec's own exact KNN by cosine distance.
func (b *baselines) knn(ctx context.Context, qv []float32, paras []qaset.Paragraph) ([]string, error) {
	blob, err := sqlite_vec.SerializeFloat32(qv)
	if err != nil {
		return nil, err
	}
	rows, err := b.db.QueryContext(ctx, `SELECT rowid FROM vec WHERE embedding MATCH ? AND k = 10 ORDER BY distance`, blob)
	if err != nil {
		return nil, err
	}
	return paragraphIDs(rows, paras)
}

func paragraphIDs(rows *sql.Rows, paras []qaset.Paragraph) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var rowid int
		if err := rows.Scan(&rowid); err != nil {
			return nil, err
		}
		out = append(out, paras[rowid-1].ID)
	}
	return out, rows.Err()
}
