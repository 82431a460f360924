package members

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestTransient(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Resource: "configmaps"}
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{apierrors.NewTooManyRequests("slow down", 1), true},
		{apierrors.NewServiceUnavailable("busy"), true},
		{apierrors.NewInternalError(errors.New("boom")), true},
		{apierrors.NewGenericServerResponse(http.StatusGatewayTimeout, "get", gr, "x", "", 0, true), true},
		{apierrors.NewTimeoutError("slow", 1), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{fmt.Errorf("body: %w", io.ErrUnexpectedEOF), true},
		{errors.New("net/http: TLS handshake timeout"), true},
		{apierrors.NewNotFound(gr, "x"), false},
		{apierrors.NewGenericServerResponse(http.StatusUnauthorized, "get", gr, "", "", 0, true), false},
		{apierrors.NewConflict(gr, "x", errors.New("changed")), false},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), false},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), false},
		{fmt.Errorf("get: %w", context.DeadlineExceeded), false},
		{fmt.Errorf("get: %w", context.Canceled), false},
	} {
		assert.Equal(t, tc.want, Transient(tc.err), "%v", tc.err)
	}
}

// TestRetry: retries go on for as long as the context allows, honour
// Retry-After, stop at once on a final error, and count into the stats;
// requests that are not idempotent are retried only when throttled.
func TestRetry(t *testing.T) {
	t.Parallel()
	unavailable := apierrors.NewServiceUnavailable("busy")

	t.Run("until it succeeds, beyond any fixed count", func(t *testing.T) {
		t.Parallel()
		var stats RetryStats
		ctx, cancel := context.WithTimeout(WithRetryStats(context.Background(), &stats), 20*time.Second)
		defer cancel()
		calls := 0
		quick := backoff{initial: time.Millisecond, max: 10 * time.Millisecond}
		err := quick.retry(ctx, Idempotent, func() error {
			calls++
			if calls < 8 {
				return unavailable
			}
			return nil
		})
		assert.NoError(t, err)
		assert.Equal(t, 8, calls)
		assert.Equal(t, int64(7), stats.Retries.Load())
		assert.Positive(t, stats.Waited.Load())
	})

	t.Run("a final error is not retried", func(t *testing.T) {
		t.Parallel()
		calls := 0
		notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "x"}, "y")
		err := Retry(context.Background(), Idempotent, func() error { calls++; return notFound })
		assert.Same(t, notFound, err)
		assert.Equal(t, 1, calls)
	})

	t.Run("no wait beyond the deadline", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		calls := 0
		start := time.Now()
		err := Retry(ctx, Idempotent, func() error { calls++; return apierrors.NewTooManyRequests("slow down", 10) })
		assert.True(t, apierrors.IsTooManyRequests(err))
		assert.Equal(t, 1, calls, "Retry-After 10s does not fit in 300ms: no wait at all")
		assert.Less(t, time.Since(start), 250*time.Millisecond)
	})

	t.Run("not idempotent: only throttling is retried", func(t *testing.T) {
		t.Parallel()
		calls := 0
		err := Retry(context.Background(), NotIdempotent, func() error {
			calls++
			return fmt.Errorf("read: %w", syscall.ECONNRESET)
		})
		assert.Error(t, err)
		assert.Equal(t, 1, calls, "a reset may have been acted on")
		calls = 0
		err = Retry(context.Background(), NotIdempotent, func() error {
			calls++
			if calls == 1 {
				return apierrors.NewTooManyRequests("slow down", 0)
			}
			return nil
		})
		assert.NoError(t, err)
		assert.Equal(t, 2, calls)
	})
}

func TestJitter(t *testing.T) {
	t.Parallel()
	for range 1000 {
		j := jitter(100 * time.Millisecond)
		assert.GreaterOrEqual(t, j, 50*time.Millisecond)
		assert.LessOrEqual(t, j, 100*time.Millisecond)
	}
}
