package members

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Backoff of Retry: jittered exponential, from retryInitial doubling to
// retryMax between tries, for as long as the member's time (the context's
// deadline) allows, not for a fixed number of tries. A burst of 503s, a
// member restarting or a flaky network is ridden out within --timeout; a
// request that cannot succeed fails at once.
var defaultBackoff = backoff{initial: 100 * time.Millisecond, max: 5 * time.Second}

type backoff struct{ initial, max time.Duration }

// RetryStats count, for one member, the retries Retry made and the time it
// waited between tries; the report shows them.
type RetryStats struct {
	Retries atomic.Int64
	Waited  atomic.Int64 // nanoseconds
}

type retryStatsKey struct{}

// WithRetryStats makes Retry count into stats for the requests made with
// the returned context.
func WithRetryStats(ctx context.Context, stats *RetryStats) context.Context {
	return context.WithValue(ctx, retryStatsKey{}, stats)
}

// errPartialDiscovery is a discovery where some groups failed: worth a few
// more tries (see restMapper).
var errPartialDiscovery = errors.New("some API groups could not be discovered")

// Idempotence says what a request does when sent twice.
type Idempotence bool

const (
	// Idempotent requests leave the same state however often they are
	// sent: reads, server-side apply, a merge patch of fixed values, a
	// delete with a UID precondition (a second one finds nothing, or
	// another object, and changes nothing). They are retried on every
	// transient error, a broken connection included.
	Idempotent Idempotence = true
	// NotIdempotent requests are retried only when the server certainly
	// did not act on them: throttled (429) or refused before it read them.
	NotIdempotent Idempotence = false
)

// Retry runs fn until it succeeds, fails with an error that is not
// transient (see Transient), or the context's time is not enough for
// another wait and try; it returns fn's last error. The wait honours a
// Retry-After the server sent (429, 503).
func Retry(ctx context.Context, idem Idempotence, fn func() error) error {
	return defaultBackoff.retry(ctx, idem, fn)
}

func (b backoff) retry(ctx context.Context, idem Idempotence, fn func() error) error {
	stats, _ := ctx.Value(retryStatsKey{}).(*RetryStats)
	delay := b.initial
	for {
		err := fn()
		if err == nil || ctx.Err() != nil || !retriable(err, idem) {
			return err
		}
		wait := jitter(delay)
		if s, ok := apierrors.SuggestsClientDelay(err); ok && time.Duration(s)*time.Second > wait {
			wait = time.Duration(s) * time.Second
		}
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < wait {
			return err // no time left to wait and try again
		}
		if stats != nil {
			stats.Retries.Add(1)
			stats.Waited.Add(int64(wait))
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		delay = min(delay*2, b.max)
	}
}

// jitter spreads d over [d/2, d), so that the members' clients do not retry
// in step.
func jitter(d time.Duration) time.Duration {
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}

func retriable(err error, idem Idempotence) bool {
	if idem == NotIdempotent {
		return apierrors.IsTooManyRequests(err)
	}
	return Transient(err)
}

// Transient says whether a request may succeed when sent again: throttling
// (429), server errors (5xx), server-side and client-side timeouts of one
// request, and connections that broke. Client errors (4xx), a refused
// connection (no server listening: a member that is down fails fast), a
// certificate that is not trusted and the end of the caller's context are
// final.
func Transient(err error) bool {
	if errors.Is(err, errPartialDiscovery) {
		return true
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		// By the HTTP status: client-go marks every response it could not
		// parse as an "unexpected server response", a 401 included.
		code := status.Status().Code
		return code == http.StatusTooManyRequests || code >= 500 ||
			apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err)
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return false
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(err.Error(), "http2: server sent GOAWAY") || strings.Contains(err.Error(), "TLS handshake timeout") {
		return true
	}
	var netErr net.Error
	return errors.As(err, &netErr) && netErr.Timeout()
}

// Retrying returns c with its reads and writes sent again on a transient
// error (Transient), as Retry does: with backoff, for as long as the
// context's time allows, counted in the context's RetryStats. Map, Reset
// and Resources are c's own: discovery has its own retries (restMapper);
// so is NamespaceContents, which retries each of its requests.
// Every Client a run builds (NewClient) is Retrying; tests wrap a fake in
// it to test what a caller sees.
func Retrying(c Client) Client {
	if r, ok := c.(retrying); ok {
		return r
	}
	return retrying{c}
}

// retrying is a Client whose requests Retry sends.
type retrying struct{ Client }

// retried runs one request of a retrying client.
func retried[T any](ctx context.Context, request func() (T, error)) (T, error) {
	var out T
	err := Retry(ctx, Idempotent, func() error {
		var err error
		out, err = request()
		return err
	})
	return out, err
}

func (r retrying) List(ctx context.Context, m Mapping, opts ListOptions) ([]unstructured.Unstructured, error) {
	return retried(ctx, func() ([]unstructured.Unstructured, error) { return r.Client.List(ctx, m, opts) })
}

func (r retrying) ListTable(ctx context.Context, m Mapping, opts ListOptions) (*metav1.Table, error) {
	return retried(ctx, func() (*metav1.Table, error) { return r.Client.ListTable(ctx, m, opts) })
}

func (r retrying) ListMetadata(ctx context.Context, m Mapping, opts ListOptions) ([]metav1.PartialObjectMetadata, error) {
	return retried(ctx, func() ([]metav1.PartialObjectMetadata, error) { return r.Client.ListMetadata(ctx, m, opts) })
}

// NamespaceContents is c's own: it sends dozens of requests (discovery,
// then a list per type), and retries each itself; retrying them all again
// for one that failed would only repeat those that did not.
func (r retrying) NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error) {
	return r.Client.NamespaceContents(ctx, namespace)
}

func (r retrying) Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	return retried(ctx, func() (*unstructured.Unstructured, error) { return r.Client.Get(ctx, m, namespace, name) })
}

func (r retrying) Apply(ctx context.Context, m Mapping, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error) {
	return retried(ctx, func() (*unstructured.Unstructured, error) { return r.Client.Apply(ctx, m, obj, opts) })
}

func (r retrying) MergePatch(ctx context.Context, m Mapping, namespace, name string, patch []byte, opts WriteOptions) (*unstructured.Unstructured, error) {
	return retried(ctx, func() (*unstructured.Unstructured, error) {
		return r.Client.MergePatch(ctx, m, namespace, name, patch, opts)
	})
}

// Delete is sent again only with a precondition: without one, a second
// delete could remove an object created in between under the same name.
func (r retrying) Delete(ctx context.Context, m Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	if p := opts.Preconditions; p == nil || p.UID == nil && p.ResourceVersion == nil {
		return r.Client.Delete(ctx, m, namespace, name, opts)
	}
	return Retry(ctx, Idempotent, func() error { return r.Client.Delete(ctx, m, namespace, name, opts) })
}
