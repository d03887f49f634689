package atomicfile

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

func swap(a, b string) error {
	err := unix.RenamexNp(a, b, unix.RENAME_SWAP)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL):
		return ErrSwapUnsupported
	default:
		return fmt.Errorf("swap %s and %s: %w", a, b, err)
	}
}
