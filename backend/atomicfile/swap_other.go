//go:build !linux && !darwin

package atomicfile

func swap(a, b string) error { return ErrSwapUnsupported }
