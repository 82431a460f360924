//go:build !windows

package rollout

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own and makes its
// cancellation kill the whole group: a gate is "sh -c", and what the shell
// starts (a smoke test, a curl) must end with it at the wave's timeout,
// not outlive fedctl.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
