// Package corpus defines the data model shared by ingestion, storage and
// retrieval: documents, their sections, and the chunks that become evidence.
// It holds plain types and id rules only, so every other backend package can
// depend on it without pulling in I/O.
package corpus

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Source says where a text unit came from. Only SourceCorpus is evidence.
const (
	SourceCorpus = "corpus"
	SourceUser   = "user"
	SourceModel  = "model"
	SourceSystem = "system"
)

// UnitChar means offsets count Unicode code points of the stored document
// text (not bytes, not UTF-16 units), so every client can slice the same span.
const UnitChar = "char"

// Offsets locate a chunk inside its document's stored text: text[Start:End].
type Offsets struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Unit  string `json:"unit"`
}

// Window records how much context (in chars) precedes and follows a chunk
// inside its section; the chunk overlap makes these non-zero.
type Window struct {
	Pre  int `json:"pre"`
	Post int `json:"post"`
}

// Document is one ingested file with its extracted text.
type Document struct {
	DocID      string    `json:"doc_id"`
	Path       string    `json:"path"` // absolute, cleaned
	Title      string    `json:"title"`
	Format     string    `json:"format"` // "md", "txt", ...
	Rev        string    `json:"rev"`    // content hash of the file bytes
	Text       string    `json:"-"`      // the extracted text offsets refer to
	Size       int64     `json:"size"`
	ModTime    time.Time `json:"mod_time"`
	Collection string    `json:"collection"`
	Sections   []Section `json:"sections"`
	Chunks     []Chunk   `json:"chunks"`
	// DetectedSource is what the document's content looks like: "" or
	// SourceCorpus for a document, SourceModel or SourceUser for a chat or
	// an answer (DetectedReason says why). Its chunks carry the source they
	// are indexed with, which differs when the user overrode the detection.
	DetectedSource string `json:"detected_source,omitempty"`
	DetectedReason string `json:"detected_reason,omitempty"`
	// OCRPages are the 1-based pages whose text was recognised from an
	// image (a scanned PDF page) by OCREngine.
	OCRPages  []int  `json:"ocr_pages,omitempty"`
	OCREngine string `json:"ocr_engine,omitempty"`
	// Charset is the legacy charset the file's text was decoded from
	// ("EUC-KR", "UTF-16LE", …); "" for UTF-8 and for binary formats.
	Charset string `json:"charset,omitempty"`
}

// Section is a heading-delimited span of a document.
type Section struct {
	SectionID string `json:"section_id"` // slug path, e.g. "guide/install/linux"
	Title     string `json:"title"`
	Level     int    `json:"level"`
	Start     int    `json:"start"` // chars
	End       int    `json:"end"`
}

// Chunk is the unit that is embedded, indexed and cited.
type Chunk struct {
	SnippetID string `json:"snippet_id"`
	DocID     string `json:"doc_id"`
	SectionID string `json:"section_id"`
	Ordinal   int    `json:"ordinal"` // position within the document
	Text      string `json:"text"`
	// Context is what the chunk is indexed and embedded with besides its
	// text: the document title and heading path, and a table's header row
	// when the chunk starts inside a table. It is not part of Text, so
	// Offsets and highlights never include it (IndexText).
	Context   string    `json:"context,omitempty"`
	Offsets   Offsets   `json:"offsets"`
	Tokens    int       `json:"tokens"` // embedding tokenizer count, special tokens included
	Window    Window    `json:"window"`
	Page      int       `json:"page,omitempty"` // 1-based when known
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"created_at"`
}

// IndexText is what a chunk is indexed and embedded as: its context, a
// blank line, then its text. Chunk sizes are counted on it, so the context
// never pushes a chunk past the model's limit.
func IndexText(context, text string) string {
	if context == "" {
		return text
	}
	return context + "\n\n" + text
}

// ReservedPrefixes mark ids that can never be evidence (chat history, drafts,
// model output). Checked at retrieval and again before an answer is accepted.
var ReservedPrefixes = []string{"chat:", "draft:", "tmp:", "gen:", "assistant:"}

// HasReservedPrefix reports whether id belongs to a non-evidence namespace.
func HasReservedPrefix(id string) bool {
	for _, p := range ReservedPrefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

func shortHash(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// DocID is derived from the document's absolute path so it stays stable
// across edits of the same file.
func DocID(absPath string) string { return "doc_" + shortHash(absPath) }

// Rev is the content hash of a document's bytes.
func Rev(content []byte) string {
	sum := sha256.Sum256(content)
	return hex.EncodeToString(sum[:])[:16]
}

// SnippetID is derived from the chunk's content and place, so re-ingesting an
// unchanged file yields the same ids and an unchanged chunk keeps its id (and
// its embedding) when other parts of the file change. occurrence
// disambiguates identical texts within one section.
func SnippetID(docID, sectionID, text string, occurrence int) string {
	return "snip_" + shortHash(docID, sectionID, text, strconv.Itoa(occurrence))
}
