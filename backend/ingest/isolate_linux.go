package ingest

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// limitAddressSpace caps the child's address space at what it maps now
// plus twice its memory limit, so an allocation far beyond the limit fails
// at once in the child instead of pushing the whole system into swap.
func limitAddressSpace(memLimit int64) {
	vm := statusBytes("VmSize:")
	if vm <= 0 {
		return
	}
	lim := uint64(vm + 2*memLimit)
	syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// resetPeakRSS restarts the peak resident-memory count ("VmHWM"), so each
// file's peak is its own.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the peak resident memory since resetPeakRSS, in bytes.
func peakRSS() int64 { return statusBytes("VmHWM:") }

// statusBytes reads a "kB" field of /proc/self/status; -1 when unknown.
func statusBytes(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Bytes()
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			kb, err := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// widenPipe raises a pipe's buffer to the system's maximum (1 MiB by
// default): a file crosses to the child in a few large writes instead of
// hundreds of 64 KiB ones.
func widenPipe(f *os.File) {
	raw, err := f.SyscallConn()
	if err != nil {
		return
	}
	size := int64(1 << 20)
	if data, err := os.ReadFile("/proc/sys/fs/pipe-max-size"); err == nil {
		if n, err := strconv.ParseInt(string(bytes.TrimSpace(data)), 10, 64); err == nil && n > 0 {
			size = min(n, 16<<20)
		}
	}
	raw.Control(func(fd uintptr) {
		syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, uintptr(size))
	})
}
