//go:build goexperiment.simd && amd64

package encoder

import "math"

// The element-wise maths of the encoder, eight floats at a time: exp for
// softmax, erf for GELU, and LayerNorm. Rows whose length is not a multiple
// of eight end in a scalar tail that computes the same polynomials.
//
// The vector loops are assembly (vecmath_amd64.s). Written with archsimd,
// exp and GELU spilled their constants and ran at 1.25 and 2.8 ns an
// element, against 0.4 and 1.3 in assembly (MiniLM-L6, 235-token passages:
// 7 ms of a passage's 83); GELU's erf is now a rational function, 0.47 ns
// an element (BenchmarkGELU, against 2.4 for the erfc·exp form). And Go
// compiles scalar float maths to SSE instructions, which keep the upper
// half of a YMM register: a scalar reloaded inside an archsimd loop (a
// register-allocation spill) made each iteration wait for the previous one
// through that upper half (softmax ran at 4 ns an element instead of 0.2).

// expRows replaces each of the rows×cols scores in s (row stride ld) by
// exp(scale·(x − max)), max its row's, and sets inv[r] to one over row r's
// sum: softmax, but for its division, which scaleRows applies later to
// the rows of the product with the values (a head's 32 floats a row, not
// the row's cols scores).
func expRows(s []float32, ld, rows, cols int, scale float32, inv []float32) {
	if cols == 0 {
		return
	}
	for r := range rows {
		inv[r] = expRowAsm(&s[r*ld:][:cols][0], cols, scale)
	}
}

// scaleRows multiplies row r of the rows×cols matrix x (row stride ld) by
// f[r].
func scaleRows(x []float32, ld, rows, cols int, f []float32) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = x[(rows-1)*ld+cols-1]
	_ = f[rows-1]
	full := cols &^ 7
	if full > 0 {
		scaleRowsAsm(&x[0], ld, rows, full, &f[0])
	}
	for r := range rows {
		row := x[r*ld:][:cols]
		for i := full; i < cols; i++ {
			row[i] *= f[r]
		}
	}
}

// erf(z) ≈ z·erfNum(z²)/erfDen(z²) for |z| ≤ erfClamp, and ±1 beyond,
// where erf is 1 to float32 precision: the rational approximation Eigen and
// XLA use for float32 erf. Its absolute error is under 5e-7 (checked
// against math.Erf in vecmath_test.go); it needs one division and no exp,
// against the erfc·exp form's division, exp and ten-term polynomial.
const erfClamp = 4

var (
	erfNum = [...]float32{-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02}
	erfDen = [...]float32{-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03, -1.42647390514189e-02}
)

// addBiasGELU adds bias to each row of x (rows×len(bias), stride ld) and
// applies exact GELU, x·(1 + erf(x/√2))/2, as BERT's "gelu" does.
func addBiasGELU(x []float32, ld, rows int, bias []float32) {
	n := len(bias)
	full := n &^ 7
	if rows == 0 || n == 0 {
		return
	}
	_ = x[(rows-1)*ld+n-1]
	if full > 0 {
		geluRowsAsm(&x[0], ld, &bias[0], full, rows)
	}
	for r := range rows {
		row := x[r*ld:][:n]
		for i := full; i < n; i++ {
			row[i] = geluScalar(row[i] + bias[i])
		}
	}
}

func geluScalar(v float32) float32 {
	return v * 0.5 * (1 + erfScalar(v*(1/math.Sqrt2)))
}

func erfScalar(z float32) float32 {
	z = min(max(z, -erfClamp), erfClamp)
	z2 := z * z
	p, q := erfNum[0], erfDen[0]
	for _, c := range erfNum[1:] {
		p = p*z2 + c
	}
	for _, c := range erfDen[1:] {
		q = q*z2 + c
	}
	return z * p / q
}

// layerNorm normalises each row of x (rows×len(gamma), stride ld) to zero
// mean and unit variance (eps added to the variance), then scales by gamma
// and shifts by beta, in place. bias, when not nil, is added first.
//
// Rows whose width is a multiple of eight, every model's hidden size, run
// in assembly, one pass for the sum, one for the variance and one to
// normalise (BenchmarkLayerNorm: 0.35–0.39 ns a float, against 1.1–1.2
// in archsimd functions that took a pass each, the bias's included).
func layerNorm(x []float32, ld, rows int, bias, gamma, beta []float32, eps float32) {
	n := len(gamma)
	if n > 0 && n%8 == 0 {
		var b *float32
		if bias != nil {
			b = &bias[:n][0]
		}
		for r := range rows {
			layerNormRowAsm(&x[r*ld:][:n][0], b, &gamma[0], &beta[:n][0], n, 1/float32(n), eps)
		}
		return
	}
	// Other widths, which no BERT model has: plain Go.
	for r := range rows {
		row := x[r*ld:][:n]
		if bias != nil {
			addRows(row, n, 1, bias)
		}
		var sum float32
		for _, v := range row {
			sum += v
		}
		mean := sum / float32(n)
		var sq float32
		for _, v := range row {
			sq += (v - mean) * (v - mean)
		}
		rstd := 1 / float32(math.Sqrt(float64(sq/float32(n)+eps)))
		for i, v := range row {
			row[i] = (v-mean)*rstd*gamma[i] + beta[i]
		}
	}
}

// addRows adds v to each of the rows×len(v) rows of x (row stride ld).
func addRows(x []float32, ld, rows int, v []float32) {
	n := len(v)
	if rows == 0 || n == 0 {
		return
	}
	_ = x[(rows-1)*ld+n-1]
	full := n &^ 7
	if full > 0 {
		addRowsAsm(&x[0], ld, rows, full, &v[0])
	}
	for r := range rows {
		row := x[r*ld:][:n]
		for i := full; i < n; i++ {
			row[i] += v[i]
		}
	}
}
