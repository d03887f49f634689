package ollamafake

import (
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/llm"
)

// ExtractiveResponder is a gold-blind reader for quality gates: it sees
// only the prompt, scores every sentence of every evidence block by the
// question's content words it contains, each weighted by how rare it is
// among the prompt's sentences (a word the evidence never uses weighs
// most: it is what the question is about and the evidence does not say),
// and quotes the best one citing its block. When no sentence holds at
// least minCover of the question's weight (and two of its words, for
// questions that have two), it replies with the refusal sentence, as a
// careful extractive model would. It knows nothing of any gold set: no
// question lists, no files.
func ExtractiveResponder(minCover float64) Responder {
	return func(req llm.ChatRequest) Reply {
		prompt := userPrompt(req)
		terms := contentTerms(questionOf(prompt))
		blocks := evidenceBlocks(prompt)
		if len(terms) == 0 || len(blocks) == 0 {
			return Reply{Tokens: Words(DontKnow)}
		}
		headers := blockHeaders(prompt)
		type candidate struct {
			text  string
			block int
		}
		var cands []candidate
		for n := 1; n <= len(blocks); n++ {
			text, ok := blocks[strconv.Itoa(n)]
			if !ok || onlyHeader(text, prompt) {
				continue
			}
			header := ""
			if n <= len(headers) {
				header = headers[n-1]
			}
			for _, sentence := range sentences(text) {
				// The section header counts as context for the sentence: a
				// reader knows which section a passage comes from.
				cands = append(cands, candidate{sentence + " \x00 " + header, n})
			}
		}
		weight := make([]float64, len(terms))
		var total float64
		for i, t := range terms {
			df := 0
			for _, c := range cands {
				if containsStem(t, c.text) {
					df++
				}
			}
			weight[i] = math.Log(1 + float64(len(cands))/(float64(df)+0.5))
			total += weight[i]
		}
		best, bestN, bestScore, bestHits := "", 0, 0.0, 0
		for _, c := range cands {
			score, hits := 0.0, 0
			for i, t := range terms {
				if containsStem(t, c.text) {
					score += weight[i]
					hits++
				}
			}
			if score > bestScore {
				best, bestN, bestScore, bestHits = c.text, c.block, score, hits
			}
		}
		if total == 0 || bestScore/total < minCover || bestHits < min(2, len(terms)) {
			return Reply{Tokens: Words(DontKnow)}
		}
		best, _, _ = strings.Cut(best, " \x00 ") // the quote, without its heading and header context
		return Reply{Tokens: Words(best + " [#" + strconv.Itoa(bestN) + "]")}
	}
}

// extractiveStopwords are function words and question words that say
// nothing about what a question is about.
var extractiveStopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at by for with from into onto as is are was were be
		been being do does did done can could should would will shall may might must have has had i me my we our you your
		it its this that these those there here what which who whom whose when where why how than then so if not no yes
		any some all each every about after before over under up out off too very just also only same other such own
		get got make makes use uses used using set sets`) {
		extractiveStopwords[w] = true
	}
}

// contentTerms returns the question's distinct content words, stemmed.
func contentTerms(question string) []string {
	seen := map[string]bool{}
	var out []string
	for _, w := range wordsOf(question) {
		if len(w) < 3 || extractiveStopwords[w] {
			continue
		}
		s := stem(w)
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// containsStem reports whether one of text's words has the stem t.
func containsStem(t, text string) bool {
	for _, w := range wordsOf(text) {
		if stem(w) == t {
			return true
		}
	}
	return false
}

// wordsOf splits text into lower-case alphanumeric words.
func wordsOf(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// stem is a crude suffix-stripping prefix stem (name, named and names
// share "nam"; install, installs and installing share "insta"), enough for
// an extractive reader's word matching.
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suffix) && len(w)-len(suffix) >= 3 {
			w = strings.TrimSuffix(w, suffix)
			break
		}
	}
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	r := []rune(w)
	if len(r) > 5 {
		r = r[:5]
	}
	return string(r)
}

// sentences splits a passage into its sentences, each ending at '.', '!'
// or '?' followed by a space or the end. A Markdown heading line is not
// part of the sentence after it: it names the section, like the block
// header, so it is returned as context for the sentences under it rather
// than as text to quote (a real reader does not read "## Keyboard
// shortcuts Press Escape …" as one sentence).
func sentences(text string) []string {
	var out []string
	heading := ""
	var body []string
	flush := func() {
		for rest := strings.TrimSpace(strings.Join(body, "\n")); rest != ""; {
			s := firstSentence(rest)
			if heading != "" {
				out = append(out, s+" \x00 "+heading)
			} else {
				out = append(out, s)
			}
			rest = strings.TrimSpace(rest[len(s):])
		}
		body = body[:0]
	}
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			flush()
			heading = strings.TrimSpace(strings.TrimLeft(t, "#"))
			continue
		}
		body = append(body, line)
	}
	flush()
	return out
}
