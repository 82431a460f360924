//go:build !windows

package rollout

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd in a process group of its own and makes its
// cancellation kill the whole group: a gate is "sh -c", and what the shell
// starts (a smoke test, a curl) must end with it at the wave's timeout,
// not outlive fedctl.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return err
		}
		// killed, or gone already: a gate that exited 0 just as its time
		// ran out passed (exec then reports its own status, not the
		// cancellation); a killed one reports the signal
		return os.ErrProcessDone
	}
}
