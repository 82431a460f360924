package members

import (
	"context"
	"net/http"
	"sync/atomic"

	"k8s.io/client-go/util/flowcontrol"
)

// Client-side rate limits for members without API Priority and Fairness.
// Members that have it (every API server since 1.20 by default) are not
// limited at all: the server queues and sheds load itself, fairly, and a
// client-side bucket only slows a large apply down — at client-go's old
// default of 5 requests per second, or even at 50, it set the pace of a
// cold apply instead of the servers.
const (
	DefaultQPS   = 200
	DefaultBurst = 400
)

// Headers an API server with API Priority and Fairness puts on its
// responses (cert-manager#8757 detects it the same way).
var apfHeaders = []string{"X-Kubernetes-Pf-Flowschema-Uid", "X-Kubernetes-Pf-Prioritylevel-Uid"}

// apfLimiter is a token bucket that stops limiting once a response from the
// member shows API Priority and Fairness. Until then (the first requests
// of a run, or a server without it) the bucket applies.
type apfLimiter struct {
	bucket flowcontrol.RateLimiter
	apf    atomic.Bool
}

var _ flowcontrol.RateLimiter = (*apfLimiter)(nil)

func newAPFLimiter(qps float32, burst int) *apfLimiter {
	return &apfLimiter{bucket: flowcontrol.NewTokenBucketRateLimiter(qps, burst)}
}

func (l *apfLimiter) TryAccept() bool { return l.apf.Load() || l.bucket.TryAccept() }

func (l *apfLimiter) Accept() {
	if !l.apf.Load() {
		l.bucket.Accept()
	}
}

func (l *apfLimiter) Stop() { l.bucket.Stop() }

func (l *apfLimiter) QPS() float32 { return l.bucket.QPS() }

func (l *apfLimiter) Wait(ctx context.Context) error {
	if l.apf.Load() {
		return ctx.Err()
	}
	return l.bucket.Wait(ctx)
}

// apfWatcher tells the limiter when a response carries APF's headers.
type apfWatcher struct {
	next    http.RoundTripper
	limiter *apfLimiter
}

func (t *apfWatcher) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err == nil && !t.limiter.apf.Load() {
		for _, h := range apfHeaders {
			if resp.Header.Get(h) != "" {
				t.limiter.apf.Store(true)
				break
			}
		}
	}
	return resp, err
}

// WrappedRoundTripper lets client-go reach the transport below, to cancel
// requests.
func (t *apfWatcher) WrappedRoundTripper() http.RoundTripper { return t.next }
