//go:build unix

package testenv

import "syscall"

// pidAlive reports whether a process with this pid exists. The children
// were reaped by their Wait, so a gone child's pid reports false.
func pidAlive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}
