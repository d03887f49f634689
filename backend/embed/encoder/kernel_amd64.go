//go:build goexperiment.simd && amd64

package encoder

import "simd/archsimd"

// supported says whether this CPU runs the encoder: the matrix kernels are
// AVX2 with FMA, and the vector maths uses 256-bit registers.
var supported = archsimd.X86.AVX2() && archsimd.X86.FMA()

// The matrix kernels (kernel_amd64.s) compute tiles of C = A·B, or C +=
// A·B when acc is 1, from k columns of A read in place (row stride lda
// floats) and one packed panel of B (k rows of the tile's width), for
// tiles ≥ 1 tiles one under another. Both keep twelve accumulators in
// registers. The 4×24 tile needs four broadcasts of A per twelve FMAs, the
// 6×16 tile six. On one Zen 3 host 4×24 ran at 89–97 GFLOPS in L1 against
// 71–79 for 6×16 (an FMA-only loop: 124); on another, 86–93 against 83–91
// (FMA-only: 99–100). 6×16 remains for products 16 or 32 columns wide
// (attention's values), where 24-wide panels would waste a third of the
// work.

//go:noescape
func kernel4x24(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc int, tiles int)

//go:noescape
func kernel6x16(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc int, tiles int)

// Supported says whether New can build an encoder on this machine.
func Supported() bool { return supported }

// geluRowsAsm is GELU of x + bias over n floats of each of rows rows of x
// (row stride ld), n a multiple of 8 (vecmath_amd64.s).
//
//go:noescape
func geluRowsAsm(x *float32, ld int, bias *float32, n int, rows int)

// expRowAsm is one row of expRows, n ≥ 1 (vecmath_amd64.s).
//
//go:noescape
func expRowAsm(v *float32, n int, scale float32) (invSum float32)

// transposeBlocks sets dst[i*ldd+j] = src[j*lds+i] for i < 8·iBlocks and
// j < 8·jBlocks, both ≥ 1 (kernel_amd64.s).
//
//go:noescape
func transposeBlocks(dst *float32, ldd int, src *float32, lds int, iBlocks, jBlocks int)

// layerNormRowAsm is one row of layerNorm, n a multiple of 8, bias nil or
// n floats (vecmath_amd64.s).
//
//go:noescape
func layerNormRowAsm(x, bias, gamma, beta *float32, n int, invN, eps float32)

// scaleRowsAsm is scaleRows for n a multiple of 8 (vecmath_amd64.s).
//
//go:noescape
func scaleRowsAsm(x *float32, ld int, rows int, n int, f *float32)

// copyPanel copies rows rows of 8·w8 floats, row stride lds, into dst one
// after another; w8 and rows ≥ 1 (kernel_amd64.s).
//
//go:noescape
func copyPanel(dst *float32, w8 int, src *float32, lds int, rows int)

// addRowsAsm is addRows for n a multiple of 8 (vecmath_amd64.s).
//
//go:noescape
func addRowsAsm(x *float32, ld int, rows int, n int, v *float32)
