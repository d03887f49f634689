//go:build goexperiment.simd && amd64

package encoder

import (
	"fmt"
	"sync"
)

// Blocking of C = A·B: kc rows of B's packed panels at a time (all of K
// for MiniLM's and BERT-base's 384- and 1,536-deep products, so C is
// written once), and mc rows of A at a time (a batch of eight 235-token
// texts has 1,880 rows). A panel of 1,536 rows does not fit in L1, but the
// prefetchers stream it from L2 faster than a second pass over C costs:
// BenchmarkGemm/down-b8 on a Zen 3 core, 94–96 GFLOPS against 87–89 with
// kc 384 (and 91–93 with 768). mc: 60, 120 and 240 measured alike (±4%,
// the machine's noise).
const (
	kc = 1536
	mc = 120 // a multiple of both tiles' rows
)

// tile is a kernel and the shape of the C tile it computes.
type tile struct {
	rows, cols int
	kernel     func(k int, a *float32, lda int, b *float32, c *float32, ldc int, acc int, tiles int)
}

var (
	tile4x24 = tile{4, 24, kernel4x24}
	tile6x16 = tile{6, 16, kernel6x16}
)

// tileFor picks the tile for a product n columns wide: 4×24 unless n is 16
// or 32 wide, where 16-wide panels waste nothing.
func tileFor(n int) tile {
	if n%24 != 0 && n%16 == 0 && n <= 32 {
		return tile6x16
	}
	return tile4x24
}

// packed is a K×N matrix laid out for a kernel: blocks of kc rows, each
// split into panels as wide as the tile, of kb×width contiguous floats,
// the last panel padded with zeros. Weights are packed once at load;
// attention packs its keys and values per text and head.
type packed struct {
	k, n, panels int
	tile         tile
	data         []float32
}

// pack lays out the K×N matrix whose element (i, j) is src[i*ld+j], or
// src[j*ld+i] when transposed, reusing dst's storage when it is big enough.
func pack(dst *packed, src []float32, ld, k, n int, transposed bool) {
	t := tileFor(n)
	w := t.cols
	panels := (n + w - 1) / w
	size := k * panels * w
	if cap(dst.data) < size {
		dst.data = make([]float32, size)
	}
	dst.k, dst.n, dst.panels, dst.tile, dst.data = k, n, panels, t, dst.data[:size]
	for k0 := 0; k0 < k; k0 += kc {
		kb := min(kc, k-k0)
		for p := range panels {
			out := dst.data[k0*panels*w+p*kb*w:][:kb*w]
			cols := min(w, n-p*w)
			if transposed {
				packTransposed(out, w, src[p*w*ld+k0:], ld, kb, cols)
				continue
			}
			if cols == w {
				// Whole panels in one call: attention's values, 64 bytes
				// a row, took 1% of a run copied row by row
				// (BenchmarkPack/values: 0.10–0.11 ns a float, against
				// 0.49–0.51).
				_ = src[(k0+kb-1)*ld+p*w+w-1]
				copyPanel(&out[0], w/8, &src[k0*ld+p*w], ld, kb)
				continue
			}
			for i := range kb {
				row := out[i*w : (i+1)*w]
				copy(row, src[(k0+i)*ld+p*w:][:cols])
				clear(row[cols:])
			}
		}
	}
}

// packTransposed sets out[i*w+j] = src[j*ld+i] for the kb×cols block, and
// zeroes columns cols to w: 8×8 blocks in one assembly call, the rest one
// by one (attention's keys; BenchmarkPack/keys, side by side: blocks 0.43–
// 0.48 ns a float against 1.3–1.6 all one by one, and one call for all
// blocks 0.26–0.33 against 0.30–0.34 for a call a block).
func packTransposed(out []float32, w int, src []float32, ld, kb, cols int) {
	fullI, fullJ := kb&^7, cols&^7
	if fullI > 0 && fullJ > 0 {
		_ = src[(fullJ-1)*ld+fullI-1]
		_ = out[(fullI-1)*w+fullJ-1]
		transposeBlocks(&out[0], w, &src[0], ld, fullI/8, fullJ/8)
	}
	for i := range kb {
		row := out[i*w : (i+1)*w]
		start := fullJ
		if i >= fullI {
			start = 0
		}
		for j := start; j < cols; j++ {
			row[j] = src[j*ld+i]
		}
		clear(row[cols:])
	}
}

// edges holds the zero-padded copies of A's bottom rows and of a C tile
// that gemm runs edge tiles through. Pooled: 36 KiB zeroed on every call
// cost 3% of an encoder run.
type edges struct {
	a [6 * kc]float32
	c [6 * 24]float32
}

var edgePool = sync.Pool{New: func() any { return new(edges) }}

// gemm computes C = A·B, or C += A·B when accumulate is set, for the m×K
// matrix A (row stride lda) and packed B; C has row stride ldc. Tiles on
// the bottom and right edges go through zero-padded copies so the kernel
// never reads or writes past a matrix.
func gemm(c []float32, ldc int, a []float32, lda, m int, b *packed, accumulate bool) {
	if m == 0 || b.n == 0 || b.k == 0 {
		return
	}
	if need := (m-1)*ldc + b.n; len(c) < need {
		panic(fmt.Sprintf("encoder: gemm output holds %d floats, needs %d", len(c), need))
	}
	if need := (m-1)*lda + b.k; len(a) < need {
		panic(fmt.Sprintf("encoder: gemm input holds %d floats, needs %d", len(a), need))
	}
	t := b.tile
	fullRows := m / t.rows * t.rows
	var edgeA, edgeC []float32
	if fullRows < m || b.n%t.cols != 0 {
		e := edgePool.Get().(*edges)
		defer edgePool.Put(e)
		edgeA, edgeC = e.a[:], e.c[:]
	}
	for k0 := 0; k0 < b.k; k0 += kc {
		kb := min(kc, b.k-k0)
		acc := 0
		if accumulate || k0 > 0 {
			acc = 1
		}
		// The bottom rows, copied into a zero-padded block of tile rows.
		if rest := m - fullRows; rest > 0 {
			clear(edgeA[:t.rows*kb])
			for r := range rest {
				copy(edgeA[r*kb:(r+1)*kb], a[(fullRows+r)*lda+k0:][:kb])
			}
		}
		for m0 := 0; m0 < m; m0 += mc {
			for p := range b.panels {
				bp := &b.data[(k0*b.panels+p*kb)*t.cols]
				col := p * t.cols
				cols := min(t.cols, b.n-col)
				end := min(m, m0+mc)
				r := m0
				if full := (min(end, fullRows) - m0) / t.rows; full > 0 && cols == t.cols {
					t.kernel(kb, &a[r*lda+k0], lda, bp, &c[r*ldc+col], ldc, acc, full)
					r += full * t.rows
				}
				for ; r < end; r += t.rows {
					rows := min(t.rows, m-r)
					ap, stride := &a[r*lda+k0], lda
					if rows < t.rows {
						ap, stride = &edgeA[0], kb
					}
					clear(edgeC[:])
					if acc == 1 {
						for i := range rows {
							copy(edgeC[i*t.cols:][:cols], c[(r+i)*ldc+col:][:cols])
						}
					}
					t.kernel(kb, ap, stride, bp, &edgeC[0], t.cols, acc, 1)
					for i := range rows {
						copy(c[(r+i)*ldc+col:][:cols], edgeC[i*t.cols:][:cols])
					}
				}
			}
		}
	}
}
