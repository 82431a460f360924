//go:build unix

package testenv

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock on f without blocking and reports
// whether it got it. flock locks belong to the open file description, so
// they are released when f is closed or the process dies, even by SIGKILL:
// a killed build never leaves the cache locked.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
