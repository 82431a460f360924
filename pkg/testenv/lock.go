package testenv

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// lockFile takes an exclusive lock on path, creating it if needed, and
// returns the function that releases it. The wait polls instead of
// blocking in flock(2) so that ctx (a test binary's deadline, Ctrl-C in
// fedctl-testenv) can end it; the lock holder may be building for minutes.
func lockFile(ctx context.Context, path string, log io.Writer) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	told := false
	for {
		ok, err := tryLock(f)
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			// Closing the descriptor releases the lock.
			return func() { _ = f.Close() }, nil
		}
		if !told {
			fmt.Fprintf(log, "waiting for another process building test binaries (lock %s)\n", path)
			told = true
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}
