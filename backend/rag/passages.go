package rag

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/llm"
)

// When no answer model can be reached — the server is not running, or the
// model is not installed — a question still gets the passages retrieval
// found, each as its best-matching sentence with its citation, so the user
// can read the answer in their documents. The answer is stored as such
// (refusal reason no_answer_model, never grounded, never cached), and its
// note says what to start or install. Its sentences are quoted from the
// passages, so claim verification marks exactly them in the source viewer.

// RefusalNoModel marks an answer made of passages because no answer model
// could be reached.
const RefusalNoModel = "no_answer_model"

// NoModelNotice opens the note of such an answer.
const NoModelNotice = "No answer model is running; these passages match."

// passagesShown is how many passages a no-model answer lists.
const passagesShown = 3

// noAnswerModel reports whether err means no model can answer at all (as
// opposed to one that failed partway).
func noAnswerModel(err error) bool {
	return !errors.Is(err, context.Canceled) && (errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrModelNotFound))
}

// passagesText is the text of a no-model answer: the best-matching sentence
// of each of the first passages, cited.
func passagesText(question string, evidence []Citation) string {
	var b strings.Builder
	for i, c := range evidence {
		if i == passagesShown {
			break
		}
		s := bestSentence(question, c.Text)
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s + " [#" + strconv.Itoa(c.N) + "]")
	}
	return b.String()
}

// bestSentence returns the sentence of text sharing the most words with
// question (earliest on a tie). Paragraphs are split at blank lines, their
// wrapped lines joined; headings, table rows and list markers are skipped.
func bestSentence(question, text string) string {
	want := map[string]bool{}
	for _, w := range indexWords(question) {
		if !questionWords[w] && len([]rune(w)) >= 3 {
			want[wordStem(w)] = true
		}
	}
	best, bestScore := "", -1
	for _, para := range strings.Split(text, "\n\n") {
		var lines []string
		for _, l := range strings.Split(para, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, "|") {
				continue
			}
			lines = append(lines, strings.TrimLeft(l, "-*+> "))
		}
		line := strings.Join(lines, " ")
		for _, s := range sentencesOf(line) {
			score := 0
			for _, w := range indexWords(s) {
				if want[wordStem(w)] {
					score++
				}
			}
			if score > bestScore {
				best, bestScore = s, score
			}
		}
	}
	return best
}

// sentencesOf splits a line after sentence-ending punctuation followed by
// a space and a capital letter or digit.
func sentencesOf(line string) []string {
	var out []string
	runes := []rune(line)
	start := 0
	for i := 0; i+2 < len(runes); i++ {
		if strings.ContainsRune(".!?", runes[i]) && runes[i+1] == ' ' && (unicode.IsUpper(runes[i+2]) || unicode.IsDigit(runes[i+2])) {
			out = append(out, strings.TrimSpace(string(runes[start:i+1])))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(string(runes[start:])); rest != "" {
		out = append(out, rest)
	}
	return out
}
