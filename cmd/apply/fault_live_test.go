package apply

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// stoppingClient stops its member's API server just before the n-th
// server-side apply it is asked to send, as a crash in the middle of a run
// would.
type stoppingClient struct {
	members.Client
	stop func()

	mu      sync.Mutex
	applies int
	n       int
}

func (s *stoppingClient) Apply(ctx context.Context, m members.Mapping, obj *unstructured.Unstructured, opts members.WriteOptions) (*unstructured.Unstructured, error) {
	s.mu.Lock()
	s.applies++
	if s.applies == s.n {
		s.stop()
	}
	s.mu.Unlock()
	return s.Client.Apply(ctx, m, obj, opts)
}

// TestApplyMemberStopsDuringApply: cluster3's API server dies after some of
// its objects are written. The other members converge; the run exits 3
// naming cluster3; once it is back, a re-run converges and writes to
// cluster3 alone. (The member down before the run is
// TestApplyMemberDown.)
func TestApplyMemberStopsDuringApply(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns, n = "midway", 40
	var b strings.Builder
	b.WriteString(namespaceDoc(ns))
	for i := range n {
		b.WriteString(configMapDoc(ns, fmt.Sprintf("cfg-%02d", i), "v1", allClusters, ""))
	}
	write(t, dir, b.String())

	stopped := false
	defer func() {
		if stopped {
			require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
		}
	}()
	wrap := func(cluster string, a members.Client) members.Client {
		if cluster != "cluster3" {
			return a
		}
		// the Namespace, then 10 ConfigMaps, then the server goes
		return &stoppingClient{Client: a, n: 12, stop: func() {
			require.NoError(t, e.StopCluster("cluster3"))
			stopped = true
		}}
	}
	r := runApplyWith(t, fed, wrap, "-f", dir, "--timeout", "20s")
	require.True(t, stopped, "cluster3 was stopped during the run")
	assertPartial(t, r.err, "cluster3")
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Equal(t, n+1, r.report.Clusters[slicesIndex(clusterNames, c)].Count(propagate.Created), c)
	}
	c3 := r.report.Clusters[2]
	created, failed := c3.Count(propagate.Created), c3.Count(propagate.Failed)
	t.Logf("cluster3: %d created before the stop, %d failed", created, failed)
	// The Namespace goes alone, first, then one ConfigMap alone (the type's
	// generation probe), then the rest 32 at a time
	// (propagate.DefaultRequests): the server stops with the 10th of those
	// in flight, so the Namespace and the first ConfigMap were written.
	assert.Equal(t, propagate.Created, r.action("cluster3", "Namespace", "", ns))
	assert.GreaterOrEqual(t, created, 1+1, "the Namespace and the first ConfigMap")
	assert.Positive(t, failed)
	assert.Equal(t, n+1, created+failed)
	// the refused requests may have been retried first (a reset as the
	// server went down): the summary then says so
	assert.Regexp(t, fmt.Sprintf(`✗ cluster cluster3: %d created, %d failed( \(\d+ retr[a-z]+, [0-9.]+s waiting\))?\n`, created, failed), r.errOut)
	assert.Contains(t, r.errOut, "refused the connection")

	require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
	stopped = false
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Zero(t, r.requests.writes("cluster1"))
	assert.Zero(t, r.requests.writes("cluster2"))
	// A request in flight when the server died may have been written
	// without its answer arriving: such an object is found up to date now.
	recreated := r.report.Clusters[2].Count(propagate.Created)
	assert.Equal(t, recreated, r.requests.writes("cluster3"), "one apply per object the stop cut off: %v", r.requests.counts["cluster3"])
	assert.Positive(t, recreated)
	assert.LessOrEqual(t, recreated, failed)
	assert.Equal(t, n+1, recreated+r.report.Clusters[2].Count(propagate.Unchanged))
	for i := range n {
		mustGet(t, "cluster3", cmGVR, ns, fmt.Sprintf("cfg-%02d", i))
	}
}
