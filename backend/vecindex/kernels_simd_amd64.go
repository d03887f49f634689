//go:build goexperiment.simd

package vecindex

import "simd/archsimd"

// vectorScoring says whether the AVX-512 kernels below run. They need the
// VPOPCNTQ instruction (Ice Lake and later, Zen 4 and later); other CPUs
// use the table lookups in quant.go, which give identical results.
var vectorScoring = archsimd.X86.AVX512() && archsimd.X86.AVX512VPOPCNTDQ()

// hammingVector fills out for codes in blocks of eight, one 512-bit load per
// sign-plane word, and returns how many codes it covered; hamming does the
// rest.
func hammingVector(cols, q []uint64, out []uint16) int {
	n := len(out)
	blocks := n &^ 7
	for i := 0; i < blocks; i += 8 {
		acc := archsimd.LoadUint64x8(cols[i : i+8]).Xor(archsimd.BroadcastUint64x8(q[0])).OnesCount()
		for w := 1; w < len(q); w++ {
			at := w*n + i
			acc = acc.Add(archsimd.LoadUint64x8(cols[at : at+8]).Xor(archsimd.BroadcastUint64x8(q[w])).OnesCount())
		}
		// Straight to the output: reading a 512-bit store back through
		// smaller loads stalled the loop (4 ms instead of 0.3 at 100k codes).
		acc.TruncToUint16().Store(out[i : i+8])
	}
	return blocks
}

// scoreVector is binaryScorer.score sixteen dimensions at a time: each
// lane takes hi or lo by its magnitude bit, negated unless its sign bit is
// set. lo and hi are padded to a multiple of 16.
func scoreVector(lo, hi []int32, sign, mag []uint64) int32 {
	var acc archsimd.Int32x16
	// Four 16-dimension blocks per word; the sub-slices bound-check once
	// per word.
	for w := 0; w*64 < len(lo); w++ {
		s, m := sign[w], mag[w]
		l, h := lo[w*64:], hi[w*64:]
		if len(l) >= 64 {
			l, h = l[:64:64], h[:64:64]
			acc = acc.Add(level16(l[0:16], h[0:16], uint16(s), uint16(m)))
			acc = acc.Add(level16(l[16:32], h[16:32], uint16(s>>16), uint16(m>>16)))
			acc = acc.Add(level16(l[32:48], h[32:48], uint16(s>>32), uint16(m>>32)))
			acc = acc.Add(level16(l[48:64], h[48:64], uint16(s>>48), uint16(m>>48)))
			continue
		}
		for at := 0; at < len(l); at += 16 {
			acc = acc.Add(level16(l[at:at+16], h[at:at+16], uint16(s), uint16(m)))
			s, m = s>>16, m>>16
		}
	}
	// Fold the lanes in registers: storing them to memory and summing
	// there stalls on store forwarding.
	x8 := acc.GetLo().Add(acc.GetHi())
	x4 := x8.GetLo().Add(x8.GetHi())
	return x4.GetElem(0) + x4.GetElem(1) + x4.GetElem(2) + x4.GetElem(3)
}

// level16 is sixteen dimensions' terms: hi or lo by the magnitude bits,
// negated where the sign bit is clear.
func level16(lo, hi []int32, signs, mags uint16) archsimd.Int32x16 {
	v := archsimd.LoadInt32x16(hi).IfElse(archsimd.Mask32x16FromBits(mags), archsimd.LoadInt32x16(lo))
	return v.IfElse(archsimd.Mask32x16FromBits(signs), v.Neg())
}
