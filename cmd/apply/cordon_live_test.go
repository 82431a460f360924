package apply

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// TestApplyCordoned: a cordoned member gets no new object and no share of
// a replica plan, while what runs there stays (not removed, not rescaled);
// after uncordon the next apply creates and plans there again.
func TestApplyCordoned(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "cordoned"
	rsp := rspDoc(ns, "web", 6)
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 6, "", allClusters, "")+rsp)
	require.NoError(t, runApply(t, fed, "-f", dir).err)
	replicas := func(c string) any {
		return mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"]
	}
	require.Equal(t, int64(2), replicas("cluster2"))

	m, _ := fed.Member("cluster2")
	m.Cordoned = &members.Cordon{Reason: "maintenance"}
	require.NoError(t, fed.Put(m, true))
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx", 6, "", allClusters, "")+rsp+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.Equal(t, int64(3), replicas("cluster1"), "the plan leaves the cordoned member out")
	assert.Equal(t, int64(3), replicas("cluster3"))
	assert.Equal(t, int64(2), replicas("cluster2"), "what runs there stays")
	assert.NotEqual(t, propagate.Deleted, r.action("cluster2", "Deployment", ns, "web"))
	assert.Equal(t, propagate.Skipped, r.action("cluster2", "ConfigMap", ns, "cfg"), "no new object in a cordoned member")
	_, err := get(t, "cluster2", cmGVR, ns, "cfg")
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
	assert.Equal(t, propagate.Created, r.action("cluster1", "ConfigMap", ns, "cfg"))

	m.Cordoned = nil
	require.NoError(t, fed.Put(m, true))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err, r.errOut)
	assert.Equal(t, propagate.Created, r.action("cluster2", "ConfigMap", ns, "cfg"))
	for _, c := range clusterNames {
		assert.Equal(t, int64(2), replicas(c), "uncordoned: planned over every member again, %s", c)
	}
}
