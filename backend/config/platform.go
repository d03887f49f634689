package config

import "runtime"

// isLinuxLike reports platforms whose user data lives under ~/.local/share.
func isLinuxLike() bool {
	return runtime.GOOS != "darwin" && runtime.GOOS != "windows"
}
