//go:build !linux

package ingest

// Elsewhere the child relies on its heap watchdog alone.
func limitAddressSpace(int64) {}
func resetPeakRSS()           {}
func peakRSS() int64          { return 0 }
