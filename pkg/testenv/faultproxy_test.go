package testenv

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// proxied returns a client of cluster2 through a new fault proxy, with
// client-go's own retries off (MaxRetries is per request; the rate limiter
// does not retry), so that each fault shows.
func proxied(t *testing.T) (*FaultProxy, *kubernetes.Clientset, *rest.Config) {
	t.Helper()
	e := Require(t, env)
	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	path := e.KubeconfigVia(t, "cluster2-proxy", "cluster2", p.Server)
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path},
		&clientcmd.ConfigOverrides{CurrentContext: "cluster2-proxy"},
	).ClientConfig()
	require.NoError(t, err)
	cfg.QPS, cfg.Burst = 100, 200
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return p, cs, cfg
}

// TestFaultProxy: each fault reaches a real client as it would from a
// failing API server or network; the rest reaches the real server.
func TestFaultProxy(t *testing.T) {
	p, cs, cfg := proxied(t)
	ctx := context.Background()
	// raw requests: client-go's own retries (429 and 5xx with
	// Retry-After, resets of GETs) would hide the faults
	get := func(path string) rest.Result {
		return cs.CoreV1().RESTClient().Get().AbsPath(path).MaxRetries(0).Do(ctx)
	}
	list := func() error { return get("/api/v1/namespaces").Error() }

	require.NoError(t, list(), "no faults: the server answers")
	n, injected := p.Counts()
	assert.Equal(t, 1, n)
	assert.Zero(t, injected)

	t.Run("429 with Retry-After, twice", func(t *testing.T) {
		p.Set(Faults{Paths: []string{"/api/v1/configmaps"}, Status: http.StatusTooManyRequests, RetryAfter: 1, Times: 2})
		res := get("/api/v1/configmaps")
		var code int
		res.StatusCode(&code)
		assert.Equal(t, http.StatusTooManyRequests, code)
		assert.True(t, apierrors.IsTooManyRequests(res.Error()), "%v", res.Error())
		delay, ok := apierrors.SuggestsClientDelay(res.Error())
		assert.True(t, ok)
		assert.Equal(t, 1, delay)
		require.NoError(t, list(), "other paths pass")
		err := get("/api/v1/configmaps").Error()
		assert.True(t, apierrors.IsTooManyRequests(err), "the second fault: %v", err)
		assert.NoError(t, get("/api/v1/configmaps").Error(), "Times: 2 is spent")
		// client-go itself waits Retry-After and retries a 429
		p.Set(Faults{Paths: []string{"/api/v1/configmaps"}, Status: http.StatusTooManyRequests, RetryAfter: 1, Times: 1})
		start := time.Now()
		_, err = cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
		assert.NoError(t, err)
		assert.GreaterOrEqual(t, time.Since(start), time.Second)
		n, injected := p.Counts()
		assert.Equal(t, 2, n, "the retried request and its retry")
		assert.Equal(t, 1, injected)
	})

	t.Run("5xx at a rate", func(t *testing.T) {
		p.Set(Faults{Status: http.StatusServiceUnavailable, Rate: 0.3, Seed: 7})
		failed := 0
		for range 40 {
			if err := list(); err != nil {
				assert.True(t, apierrors.IsServiceUnavailable(err), "%v", err)
				failed++
			}
		}
		_, injected := p.Counts()
		assert.Equal(t, injected, failed)
		assert.InDelta(t, 12, failed, 8, "about 30%% of 40")
	})

	t.Run("reset mid-response", func(t *testing.T) {
		p.Set(Faults{Reset: true, Times: 1})
		err := list()
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "fault injected", "not an HTTP answer: %v", err)
		require.NoError(t, list())
	})

	t.Run("reset before the response", func(t *testing.T) {
		// not Times: 1, as Go's transport itself retries a request that
		// failed unanswered on a reused connection
		p.Set(Faults{ResetBeforeResponse: true})
		require.Error(t, list())
		p.Set(Faults{})
		require.NoError(t, list())
	})

	t.Run("latency", func(t *testing.T) {
		p.Set(Faults{Latency: 300 * time.Millisecond, Times: 1})
		start := time.Now()
		require.NoError(t, list())
		assert.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)
	})

	t.Run("a member that never answers", func(t *testing.T) {
		p.Set(Faults{Hang: true})
		hctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cs.CoreV1().Namespaces().List(hctx, metav1.ListOptions{})
		require.Error(t, err)
		assert.True(t, errors.Is(err, context.DeadlineExceeded) || errors.Is(hctx.Err(), context.DeadlineExceeded), "%v", err)
		assert.Less(t, time.Since(start), 5*time.Second)
		p.Set(Faults{})
	})

	t.Run("a stale aggregated API group", func(t *testing.T) {
		p.Set(Faults{StaleGroups: []string{"apps"}})
		dc, err := discovery.NewDiscoveryClientForConfig(cfg)
		require.NoError(t, err)
		_, _, err = dc.ServerGroupsAndResources()
		var failed *discovery.ErrGroupDiscoveryFailed
		require.ErrorAs(t, err, &failed)
		var groups []string
		for gv := range failed.Groups {
			groups = append(groups, gv.Group)
		}
		assert.Equal(t, []string{"apps"}, groups)
		p.Set(Faults{})
		_, _, err = dc.ServerGroupsAndResources()
		assert.NoError(t, err)
	})
}
