//go:build !linux

package ingest

import "os"

// Elsewhere the child relies on its heap watchdog alone.
func limitAddressSpace(int64) {}
func resetPeakRSS()           {}
func peakRSS() int64          { return 0 }
func widenPipe(*os.File)      {}
