//go:build !linux

package testenv

import (
	"errors"
	"os"
	"syscall"
)

// childAttr sets nothing where Pdeathsig does not exist: children of a
// killed parent may outlive it there. Linux is the supported platform.
func childAttr() *syscall.SysProcAttr {
	return nil
}

// signalChild signals the child itself; without childAttr's process group
// there is no group to signal.
func signalChild(p *os.Process, sig syscall.Signal) error {
	var err error
	if sig == syscall.SIGKILL {
		err = p.Kill()
	} else {
		err = p.Signal(sig)
	}
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
