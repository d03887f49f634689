//go:build !unix

package ingest

// openNonBlock is unix-only; elsewhere named pipes do not live among files.
const openNonBlock = 0
