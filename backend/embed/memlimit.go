package embed

import (
	"math"
	"runtime/debug"
)

// MemoryLimit is the Go runtime soft memory limit LimitProcessMemory sets.
// Most of an ingest's peak is garbage: per-call activations and matmul
// scratch. Without a limit the heap grows to twice the live set; with it,
// GC runs earlier and the peak stays bounded.
const MemoryLimit = 1300 << 20

// LimitProcessMemory sets the Go runtime soft memory limit to MemoryLimit
// unless the process already has one (GOMEMLIMIT). It is process-wide, so
// only programs' entry points call it, never Load.
func LimitProcessMemory() {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		debug.SetMemoryLimit(MemoryLimit)
	}
}
