package cache

import "strings"

// typoOf reports whether two different lowercase words are one typing slip
// apart: a neighbouring key hit instead, two neighbouring letters swapped
// (peroid), or a letter dropped or added (cartrige). Short words are exempt,
// because there one slip often makes another real word (cost/cast,
// plane/planet); substitutions must be neighbouring keys, because other
// substitutions make real words too (export/expert).
func typoOf(a, b string) bool {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	for _, r := range append(append([]rune{}, ra...), rb...) {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	switch len(rb) - len(ra) {
	case 0:
		if len(ra) < 5 {
			return false
		}
		var diff []int
		for i := range ra {
			if ra[i] != rb[i] {
				diff = append(diff, i)
			}
		}
		switch len(diff) {
		case 1:
			return neighbourKeys(ra[diff[0]], rb[diff[0]])
		case 2:
			i, j := diff[0], diff[1]
			return j == i+1 && ra[i] == rb[j] && ra[j] == rb[i]
		}
		return false
	case 1:
		if len(ra) < 6 {
			return false
		}
		for i := range rb {
			if string(rb[:i])+string(rb[i+1:]) == string(ra) {
				return true
			}
		}
	}
	return false
}

var keyboardRows = []string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

// neighbourKeys reports whether two letters sit next to each other on a
// QWERTY keyboard (same row, or the row above or below).
func neighbourKeys(a, b rune) bool {
	ra, ca := keyPos(a)
	rb, cb := keyPos(b)
	if ra < 0 || rb < 0 {
		return false
	}
	switch rb - ra {
	case 0:
		return cb == ca-1 || cb == ca+1
	case -1:
		return cb == ca || cb == ca+1
	case 1:
		return cb == ca-1 || cb == ca
	}
	return false
}

func keyPos(r rune) (row, col int) {
	for i, keys := range keyboardRows {
		if c := strings.IndexRune(keys, r); c >= 0 {
			return i, c
		}
	}
	return -1, -1
}
