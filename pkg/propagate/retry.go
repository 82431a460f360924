package propagate

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Retries of transient errors: at most retryAttempts tries per request,
// waiting retryDelay, then twice as long each time (0.1 s, 0.2 s, 0.4 s), so
// a request gives up within a second of backoff and a member's --timeout
// still bounds everything.
var (
	retryAttempts = 4
	retryDelay    = 100 * time.Millisecond
)

// withRetry runs fn until it succeeds, fails with an error that is not
// transient, runs out of attempts or ctx ends.
func withRetry(ctx context.Context, fn func() error) error {
	delay := retryDelay
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt >= retryAttempts || !transient(err) || ctx.Err() != nil {
			return err
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay *= 2
	}
}

// transient says whether a request may succeed when sent again: throttling
// (429), server errors (5xx), server-side timeouts and dropped connections.
// Client errors (4xx) and a refused connection (no server) are final.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().Code >= 500
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}
