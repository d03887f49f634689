package openai

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/llm"
)

// TestMessagesAreSentences: what the user reads starts upper-case and
// does not join two clauses with ": ".
func TestMessagesAreSentences(t *testing.T) {
	_, badURL := New("ftp://x", "", nil)
	_, plainKey := New("http://gpu-box.test:1234", "sekrit", nil)
	msgs := map[string]string{"bad address": fmt.Sprint(badURL), "key over http": fmt.Sprint(plainKey)}
	for _, err := range []error{context.Canceled, llm.ErrUnreachable, llm.ErrModelNotFound, llm.ErrFirstTokenTimeout,
		llm.ErrStreamStalled, llm.ErrTruncatedStream, llm.ErrMalformedStream, context.DeadlineExceeded} {
		msgs[err.Error()] = DescribeFor(fmt.Errorf("wrapped: %w", err), "http://127.0.0.1:1234/v1", "m", "FOOTNOTE_OPENAI_BASE_URL")
	}
	for what, msg := range msgs {
		r, _ := utf8.DecodeRuneInString(msg)
		if !unicode.IsUpper(r) || strings.Contains(msg, ": ") || !strings.HasSuffix(msg, ".") {
			t.Errorf("%s: %q is not one plain sentence", what, msg)
		}
	}
	if !errors.Is(plainKey, ErrKeyOverPlainHTTP) {
		t.Errorf("the key refusal lost its kind: %v", plainKey)
	}
}
