package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/footnote-app/footnote/backend/corpus"
	"github.com/footnote-app/footnote/backend/rag"
	"github.com/footnote-app/footnote/backend/store"
	"github.com/footnote-app/footnote/backend/verify"
)

func answerBenchWords(seed, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "w%d ", (seed*7919+i*31)%5000)
	}
	return b.String()
}

// BenchmarkStoredAnswerCheckSetup is the cost paid, at the first changed
// file of an ingest run after an answer was stored, to compare documents
// with stored answers: decoding reuseAnswers records (about 150 words, 8 packed passages of
// about 120 words each) and hashing their word runs.
func BenchmarkStoredAnswerCheckSetup(b *testing.B) {
	recs := make([]store.AnswerRecord, reuseAnswers)
	for i := range recs {
		a := rag.Answer{ID: fmt.Sprint("ans", i), Question: "q", Answer: answerBenchWords(i*100+50, 150)}
		for k := range 8 {
			a.Evidence = append(a.Evidence, rag.Citation{N: k + 1, Text: answerBenchWords(i*100+k, 120), Source: corpus.SourceCorpus})
		}
		a.Citations = a.Evidence[:2]
		rec, err := rag.Record(a)
		if err != nil {
			b.Fatal(err)
		}
		recs[i] = rec
	}
	b.ReportAllocs()
	for b.Loop() {
		verify.NewAnswerPrints(storedAnswers(recs))
	}
}
