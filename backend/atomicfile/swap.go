package atomicfile

import "errors"

// ErrSwapUnsupported is returned by Swap where the system or the file
// system cannot exchange two names in one step.
var ErrSwapUnsupported = errors.New("this file system cannot swap two names atomically")

// Swap exchanges the entries at a and b (files or folders, both existing, in
// the same file system) in one atomic step, so at no moment is either name
// missing. Callers fall back to two renames on ErrSwapUnsupported.
func Swap(a, b string) error { return swap(a, b) }
