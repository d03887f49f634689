// Package encoder runs BERT-family sentence encoders on the CPU: Go with
// AVX2 assembly for the matrix products, softmax, GELU, LayerNorm and
// packing, no cgo. It reads
// the same ONNX weights hugot's Go backend runs and computes the same
// vectors (cosine 1 − 1e-7 on MiniLM-L6), with less work: no padding, each
// text attending only to its own tokens; weights packed for the kernel once
// at load, not on every call; and only the query projection's bias added
// (softmax cancels the key's, and the value's folds into the output
// projection's). On a Zen 3 core a 235-token MiniLM-L6 passage in a batch
// of eight cost 75 CPU-ms against the Go backend's 115, and 71 against ONNX
// Runtime's 87 (make bench, bench/RESULTS.md).
//
// It owns the forward pass only: tokenising, pooling and the choice of
// engine stay in package embed, which compares this encoder's output with
// a full ONNX run before using it, so a graph that computes something
// other than what readWeights assumes is never served.
package encoder
