package embed

import "testing"

func TestCosine(t *testing.T) {
	if Cosine([]float32{1, 0}, []float32{2, 0}) != 1 || Cosine([]float32{1, 0}, []float32{0, 1}) != 0 || Cosine(nil, nil) != 0 || Cosine([]float32{1}, []float32{1, 2}) != 0 {
		t.Fatal("cosine")
	}
}
