//go:build !goexperiment.simd || !amd64

package vecindex

// Without Go's SIMD package the binary scan uses table lookups and
// math/bits only (quant.go, codes.go).
const vectorScoring = false

func hammingVector(cols, q []uint64, out []uint16) int { return 0 }

func scoreVector(lo, hi []int32, sign, mag []uint64) int32 { return 0 }
