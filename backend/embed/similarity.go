package embed

import "math"

// Cosine is the cosine similarity of two embeddings (0 when either is empty
// or zero, or their lengths differ). The answer cache compares questions with
// it and claim verification compares claims with passage sentences.
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
