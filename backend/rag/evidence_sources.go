package rag

// CountEvidenceSources counts passages by their source.
func CountEvidenceSources(evidence []Citation) map[string]int {
	out := map[string]int{}
	for _, c := range evidence {
		out[c.Source]++
	}
	return out
}
