package verify_test

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/footnote-app/footnote/backend/verify"
)

// FuzzClaimsAndSpans: any answer splits into segments whose offsets give
// back their text, and any passage yields a span whose offsets do.
func FuzzClaimsAndSpans(f *testing.F) {
	f.Add("Footnote needs 200 MB [#1]. It runs on Linux. [#2]\n\n- item `a. b` [#3]\n| x | y [#1] |", installPassage)
	f.Add("백업은 14일치 스냅샷을 보관합니다 [#1].", "백업은 매일 밤 2시 30분에 실행되며 14일치 스냅샷을 보관합니다. 4GB보다 큰 파일은 백업하지 않습니다.")
	f.Add("```\n[#1]\n```\nDone [#1]:", "# H\n\n```go\nx := 1.5\n```\n\nNot in seat tickets, e.g. 3.5 GB.")
	f.Fuzz(func(t *testing.T, answer, passage string) {
		if !utf8.ValidString(answer) || !utf8.ValidString(passage) {
			return
		}
		claims := verify.Claims(answer, "What does it need?", passage)
		runes := []rune(answer)
		for _, c := range claims {
			if answer[c.Start:c.End] != c.Text || string(runes[c.CharStart:c.CharEnd]) != c.Text {
				t.Fatalf("segment offsets do not give its text: %+v", c)
			}
		}
		const start = 7
		res, err := (&verify.Verifier{}).VerifyAnswer(context.Background(), claims, []verify.Passage{{N: 1, Text: passage, Start: start}})
		if err != nil {
			t.Fatal(err)
		}
		prunes := []rune(passage)
		for _, cr := range res {
			for _, r := range cr.Results {
				sp := r.Span
				if sp.Text == "" {
					continue
				}
				if got := string(prunes[sp.Offsets.Start-start : sp.Offsets.End-start]); got != sp.Text || passage[sp.PassageStart:sp.PassageEnd] != sp.Text {
					t.Fatalf("span offsets give %q, span %q", got, sp.Text)
				}
				if r.Score < 0 || r.Score > 1 {
					t.Fatalf("score %v", r.Score)
				}
			}
		}
	})
}
