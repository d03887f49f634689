package rag

import (
	"github.com/footnote-app/footnote/backend/provenance"
	"github.com/footnote-app/footnote/backend/verify"
)

// segmentsOf turns an answer's claims into its audit segments: the same
// sentences claim verification checks, each with the passages it is
// checked against (its own markers, or those it inherits by the claims'
// coverage rule). Markers inside code or copied out of evidence are not
// among them, so the audit log, confidence and the verifier agree.
func segmentsOf(claims []verify.Claim) []provenance.Segment {
	out := make([]provenance.Segment, 0, len(claims))
	for _, c := range claims {
		cites := c.Markers
		if cites == nil {
			cites = []int{}
		}
		out = append(out, provenance.Segment{Text: c.Text, Cites: cites, Inherited: c.Inherited, NonClaim: c.NonClaim})
	}
	return out
}
