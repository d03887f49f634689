package ollamafake

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/footnote-app/footnote/backend/llm"
)

// DontKnow is the default responder's reply when the prompt has no evidence.
const DontKnow = "I don't know based on the provided documents."

// blockStart matches an evidence block's first line: "[#n] header".
var blockStart = regexp.MustCompile(`^\[#(\d+)\]\s*(.*)$`)

// DefaultResponder answers from the evidence in the last user message the
// way a well-behaved model would: the first sentence of block [#1] cited as
// [#1], then "It also notes: <first sentence of [#2]> [#2]" when there is a
// block #2. Without evidence blocks it replies DontKnow.
func DefaultResponder(req llm.ChatRequest) Reply {
	prompt := userPrompt(req)
	blocks := evidenceBlocks(prompt)
	// Quote the first two blocks that hold passage text, in prompt order; a
	// block that is only its "Title › section" header says nothing a model
	// would repeat as a fact.
	var quoted []string
	for n := 1; n <= len(blocks) && len(quoted) < 2; n++ {
		num := strconv.Itoa(n)
		text, ok := blocks[num]
		if !ok || onlyHeader(text, prompt) {
			continue
		}
		sentence := quote(text) + " [#" + num + "]"
		if len(quoted) == 1 {
			sentence = "It also notes: " + sentence
		}
		quoted = append(quoted, sentence)
	}
	if len(quoted) == 0 {
		if _, ok := blocks["1"]; !ok {
			return Reply{Tokens: Words(DontKnow)}
		}
		quoted = append(quoted, quote(blocks["1"])+" [#1]") // only headers were given
	}
	return Reply{Tokens: Words(strings.Join(quoted, " "))}
}

// MisquotingResponder answers like DefaultResponder, but writes to in
// place of every from, as a model that misreads a number or name does: the
// citation stays, the claim no longer matches its passage. It lets a browser
// test show an unsupported claim from an otherwise well-behaved model.
func MisquotingResponder(from, to string) Responder {
	return Misquoting(DefaultResponder, from, to)
}

// Misquoting wraps next so that its replies say to in place of every from;
// wrapping twice misreads two things.
func Misquoting(next Responder, from, to string) Responder {
	return func(req llm.ChatRequest) Reply {
		r := next(req)
		text := strings.Join(r.Tokens, "")
		if from == "" || !strings.Contains(text, from) {
			return r
		}
		return Reply{Tokens: Words(strings.ReplaceAll(text, from, to))}
	}
}

// CitingResponder is a gold-blind scripted model for tests: it reads only
// the prompt, finds the first evidence block whose text contains pick, and
// states claim citing that block — right or wrong, as a model might.
func CitingResponder(claim, pick string) Responder {
	return func(req llm.ChatRequest) Reply {
		blocks := evidenceBlocks(userPrompt(req))
		for n := 1; n <= len(blocks); n++ {
			if text, ok := blocks[strconv.Itoa(n)]; ok && strings.Contains(text, pick) {
				return Reply{Tokens: Words(claim + " [#" + strconv.Itoa(n) + "].")}
			}
		}
		return Reply{Tokens: Words(DontKnow)}
	}
}

// userPrompt is the last user message: the prompt with the evidence.
func userPrompt(req llm.ChatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return ""
}

// onlyHeader reports a block text that is the "Title › section" header of
// Footnote's prompt: the passage itself held only a Markdown heading, and a
// model would not quote the header as something the passage says.
func onlyHeader(text, prompt string) bool {
	if !strings.Contains(text, " › ") {
		return false
	}
	for _, h := range blockHeaders(prompt) {
		if strings.Join(strings.Fields(h), " ") == text {
			return true
		}
	}
	return false
}

// evidenceBlocks maps each block number to its passage text. A block is a
// "[#n] header" line followed by passage lines up to the next block, a
// blank line before non-block text, or a "Question:" line. A block with no
// passage lines (the "[#n] passage" one-line form) uses the header text.
func evidenceBlocks(prompt string) map[string]string {
	blocks := map[string]string{}
	var num, header string
	var body []string
	needHeader := false // "[#n]" alone on its line: the header is the next line
	flush := func() {
		if num == "" {
			return
		}
		text := strings.Join(strings.Fields(strings.Join(body, " ")), " ")
		if text == "" {
			text = strings.Join(strings.Fields(header), " ")
		}
		if _, dup := blocks[num]; !dup {
			blocks[num] = text
		}
		num, header, body = "", "", nil
	}
	for _, line := range strings.Split(prompt, "\n") {
		trimmed := strings.TrimSpace(line)
		if m := blockStart.FindStringSubmatch(trimmed); m != nil {
			flush()
			num, header = m[1], m[2]
			needHeader = header == ""
			continue
		}
		if strings.HasPrefix(trimmed, "Question:") {
			flush()
			continue
		}
		if num != "" && needHeader && trimmed != "" {
			header, needHeader = trimmed, false
		} else if num != "" && !strings.HasPrefix(trimmed, "#") {
			// Markdown heading lines are passed over, as a model would not quote them.
			body = append(body, trimmed)
		}
	}
	flush()
	return blocks
}

// quote is the first sentence of a passage as a model repeats it. A passage
// that its chunk's end cut mid-sentence is quoted as far as it goes and
// closed with a period: a model does not run two quotes into one sentence,
// and without the period the next quote ("It also notes: …") would join this
// one as a single claim checked against one passage.
func quote(text string) string {
	s := firstSentence(text)
	if s == "" || strings.HasSuffix(s, ".") || strings.HasSuffix(s, "!") || strings.HasSuffix(s, "?") {
		return s
	}
	return s + "."
}

// firstSentence returns text up to and including the first '.', '!' or '?'
// that ends a sentence (followed by a space or the end of the text).
func firstSentence(text string) string {
	runes := []rune(text)
	for i, r := range runes {
		if r != '.' && r != '!' && r != '?' {
			continue
		}
		if i == len(runes)-1 || unicode.IsSpace(runes[i+1]) {
			return string(runes[:i+1])
		}
	}
	return text
}

// Words splits text into tokens the way a tokenizer stream looks: each
// token is a run of non-space characters with the whitespace before it
// attached (" install"). Concatenating the tokens gives back text exactly.
func Words(text string) []string {
	var tokens []string
	start := 0
	inWord := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if space && inWord {
			tokens = append(tokens, text[start:i])
			start = i
		}
		inWord = !space
	}
	if start < len(text) {
		tokens = append(tokens, text[start:])
	}
	return tokens
}
