package ingest

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// limitAddressSpace caps the child's address space at what it maps now
// plus twice its memory limit, so an allocation far beyond the limit fails
// at once in the child instead of pushing the whole system into swap.
func limitAddressSpace(memLimit int64) {
	vm := statusBytes("self", "VmSize:")
	if vm <= 0 {
		return
	}
	lim := uint64(vm + 2*memLimit)
	syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim})
}

// limitChildMemory gives a program just started the parser child's
// address-space cap: what it maps now plus twice memLimit.
func limitChildMemory(pid int, memLimit int64) {
	vm := statusBytes(strconv.Itoa(pid), "VmSize:")
	if vm <= 0 {
		return
	}
	lim := uint64(vm + 2*memLimit)
	unix.Prlimit(pid, unix.RLIMIT_AS, &unix.Rlimit{Cur: lim, Max: lim}, nil)
}

// childRSS is a program's resident memory in bytes; -1 when unknown.
func childRSS(pid int) int64 { return statusBytes(strconv.Itoa(pid), "VmRSS:") }

// resetPeakRSS restarts the peak resident-memory count ("VmHWM"), so each
// file's peak is its own.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the peak resident memory since resetPeakRSS, in bytes.
func peakRSS() int64 { return statusBytes("self", "VmHWM:") }

// statusBytes reads a "kB" field of /proc/<proc>/status (proc is "self" or
// a pid); -1 when unknown.
func statusBytes(proc, field string) int64 {
	data, err := os.ReadFile("/proc/" + proc + "/status")
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
