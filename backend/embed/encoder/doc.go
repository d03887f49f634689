// Package encoder runs BERT-family sentence encoders on the CPU in pure Go
// with an AVX2 matrix kernel: the same ONNX weights the Go backend runs,
// computed without padding (each text attends only to its own tokens) and
// with the weights packed once at load instead of on every call.
//
// It owns the forward pass only: tokenising, pooling and the choice of
// engine stay in package embed, which compares this encoder's output with
// a full ONNX run before using it, so a graph that computes something
// other than what readWeights assumes is never served.
package encoder
