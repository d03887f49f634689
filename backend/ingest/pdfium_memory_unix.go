//go:build unix

package ingest

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// pdfiumMemory backs each PDFium instance's memory with one anonymous
// mapping of its maximum size, reserved but untouched until used. Growing
// it never copies, and none of it is Go heap: by default the runtime grows
// a Go slice, and a decompression bomb's growth left 870 MiB of copies for
// the collector (under the race detector) where the limit was 256 MiB. The
// pages go back to the system as the instance closes.
func pdfiumMemory() experimental.MemoryAllocator {
	return experimental.MemoryAllocatorFunc(func(capacity, maximum uint64) experimental.LinearMemory {
		b, err := syscall.Mmap(-1, 0, int(maximum), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return &sliceMemory{}
		}
		return &mappedMemory{b: b}
	})
}

type mappedMemory struct{ b []byte }

func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.b)) {
		return nil // past the limit: the module's allocation fails
	}
	return m.b[:size:size]
}

func (m *mappedMemory) Free() {
	if m.b != nil {
		syscall.Munmap(m.b)
		m.b = nil
	}
}
