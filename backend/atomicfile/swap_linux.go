package atomicfile

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

func swap(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOTSUP):
		return ErrSwapUnsupported // old kernel, or a file system without RENAME_EXCHANGE
	default:
		return fmt.Errorf("swap %s and %s: %w", a, b, err)
	}
}
