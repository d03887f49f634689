package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

func TestCompareVectorsFindsTheWorstPassage(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, v [][]float64) {
		data, _ := json.Marshal(map[string]any{"vectors": v})
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("footnote-b8.json", [][]float64{{1, 0}, {0, 1}})
	write("ort-b8.json", [][]float64{{2, 0}, {1, 1}}) // same direction; 45°
	got, err := compareVectors(dir, 8)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-math.Sqrt2/2) > 1e-12 {
		t.Errorf("lowest cosine %v, want %v", got, math.Sqrt2/2)
	}
	write("ort-b8.json", [][]float64{{1, 0}})
	if _, err := compareVectors(dir, 8); err == nil {
		t.Error("vectors of different counts compared without an error")
	}
}

func TestMedianOfRatios(t *testing.T) {
	if m := median([]float64{1.3, 0.9, 1.1}); m != 1.1 {
		t.Errorf("median = %v", m)
	}
	if m := median([]float64{1, 2}); m != 1.5 {
		t.Errorf("median of two = %v", m)
	}
	if !math.IsNaN(median(nil)) {
		t.Error("median of nothing should be NaN")
	}
}

func TestPeerMissingSaysWhatToInstall(t *testing.T) {
	if why := peerMissing(t.TempDir()); why == "" {
		t.Error("an empty folder was taken for an installed peer")
	}
}
