package verify

import "testing"

// TestMarkUnfinished: only a last sentence that stops mid-way is taken out
// of the claims of a cut answer.
func TestMarkUnfinished(t *testing.T) {
	cases := map[string]string{
		"Run the installer [#1]. Then open the app and":                        NotUnfinished,
		"Run the installer [#1]. Then open the app [#1]":                       NotUnfinished,
		"Run the installer [#1]. Then open the app. [#1]":                      "",
		"Run the installer [#1]. Then open the app [#1].":                      "",
		"Run the installer [#1]. The log reads \"install complete on Linux.\"": "",
	}
	for answer, want := range cases {
		claims := Claims(answer, "")
		MarkUnfinished(claims)
		last := claims[len(claims)-1]
		if last.NonClaim != want {
			t.Errorf("%q: last segment %q non_claim %q, want %q", answer, last.Text, last.NonClaim, want)
		}
		if claims[0].NonClaim != "" {
			t.Errorf("%q: the finished first sentence is not a claim any more", answer)
		}
	}
}
