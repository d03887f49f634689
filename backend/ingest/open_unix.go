//go:build unix

package ingest

import "syscall"

// openNonBlock makes opening a FIFO return at once instead of waiting for a
// writer; it changes nothing for regular files.
const openNonBlock = syscall.O_NONBLOCK
