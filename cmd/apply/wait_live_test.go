package apply

import (
	"errors"
	"testing"

	"encoding/json"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/status"
)

// TestApplyWait: --wait returns once every applied object is Current, and
// fails with the objects that are not, by cluster, when --timeout passes.
// These clusters run no controllers, so a ConfigMap is Current at once and
// a Deployment never gets there (its status is never written); readiness
// of real rollouts is tested in cmd/status with controllers.
func TestApplyWait(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "wait"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))

	r := runApply(t, fed, "-f", dir, "--wait", "--timeout", "20s")
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Created)
	assert.Equal(t, &status.Verdict{Ready: true}, waitVerdict(t, r), "-o json holds the wait's verdict")
	assert.Contains(t, r.out, `"wait": {`)

	// A Deployment nobody rolls out, in two members only.
	twoClusters := "    clusters:\n    - name: cluster1\n    - name: cluster3"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+
		deploymentDoc(ns, "web", "nginx:1.27", 1, "", twoClusters, ""))
	r = runApply(t, fed, "-f", dir, "--wait", "--timeout", "5s") // room for a read or two on a loaded machine
	require.Error(t, r.err)
	var notReady *status.NotReadyError
	require.True(t, errors.As(r.err, &notReady), "a wait that times out says what is not ready: %v", r.err)
	assert.True(t, notReady.TimedOut)
	var where []string
	for _, o := range notReady.Objects {
		where = append(where, o.Cluster+" "+o.Object)
	}
	assert.Len(t, where, 2, "the Deployment in cluster1 and cluster3, nothing else: %v", where)
	assert.Contains(t, r.err.Error(), "cluster cluster1:")
	assert.Contains(t, r.err.Error(), "cluster cluster3:")
	assert.NotContains(t, r.err.Error(), "cluster cluster2:")
	var partial *cmdutil.PartialError
	assert.False(t, errors.As(r.err, &partial), "the apply itself succeeded: not 3")
	var timeout *cmdutil.TimeoutError
	assert.True(t, errors.As(r.err, &timeout), "a wait that times out exits 4: %v", r.err)
	v := waitVerdict(t, r)
	require.NotNil(t, v, "-o json holds the verdict of a wait that timed out")
	assert.False(t, v.Ready)
	assert.True(t, v.TimedOut)
	assert.False(t, v.Failed)
	var clusters []string
	for _, c := range v.NotReady {
		clusters = append(clusters, c.Cluster)
		require.Len(t, c.Objects, 1, c.Cluster)
		assert.Equal(t, "Deployment wait/web", c.Objects[0].Object, c.Cluster)
		assert.Equal(t, "FederatedDeployment wait/web", c.Objects[0].FederatedObject, c.Cluster)
	}
	assert.Equal(t, []string{"cluster1", "cluster3"}, clusters, "not-ready objects by cluster")
	assert.Equal(t, propagate.Created, r.action("cluster1", "Deployment", ns, "web"), "applied before waiting")

	// Without --wait there is no verdict in the report.
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Nil(t, waitVerdict(t, r))
	assert.NotContains(t, r.out, `"wait": {`)

	// --wait with a dry run is a usage error.
	r = runApply(t, fed, "-f", dir, "--wait", "--dry-run=server")
	var flagErr *cmdutil.FlagError
	assert.True(t, errors.As(r.err, &flagErr), "%v", r.err)
}

// waitVerdict is the "wait" object of apply's -o json; nil when absent.
func waitVerdict(t *testing.T, r applyRun) *status.Verdict {
	t.Helper()
	var got struct {
		Wait *status.Verdict `json:"wait"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.out), &got), r.out)
	return got.Wait
}
