package testenv

import (
	"errors"
	"os"
	"syscall"
)

// childAttr puts each child in its own process group, so signals aimed at
// it (and a terminal's Ctrl-C aimed at ours) are delivered deliberately,
// and asks the kernel to SIGKILL it when its parent dies, so API servers
// never outlive a test binary killed by go test's timeout.
//
// Pdeathsig fires when the parent *thread* exits. Go only ends an OS thread
// when a goroutine locked to it with runtime.LockOSThread returns, which
// this package never does, so in practice it means "the process exits".
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// signalChild sends sig to the child's process group. A group that is
// already gone is not an error: the child exited on its own.
func signalChild(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
