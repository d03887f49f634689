//go:build !linux

package ingest

import "os"

// Elsewhere the child relies on its heap watchdog alone, and the programs
// it runs on their time budget.
func limitAddressSpace(int64)     {}
func limitChildMemory(int, int64) {}
func childRSS(int) int64          { return -1 }
func resetPeakRSS()               {}
func peakRSS() int64              { return 0 }
func widenPipe(*os.File)          {}
