//go:build !unix

package ingest

import "github.com/tetratelabs/wazero/experimental"

// pdfiumMemory is the runtime's own: Go slices that grow by copying.
func pdfiumMemory() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, maximum uint64) experimental.LinearMemory {
		return &sliceMemory{}
	})
}
