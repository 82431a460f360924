package apply

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// TestApplyRetainReplicas: with spec.retainReplicas, an existing object
// keeps the replicas someone else (an HPA) set, while the rest of the
// template still propagates.
func TestApplyRetainReplicas(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "retain"
	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx:1.27", 3, "  retainReplicas: true", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", dir).err)
	replicas := func(c string) int64 {
		n, _, _ := unstructured.NestedInt64(mustGet(t, c, deployGVR, ns, "web").Object, "spec", "replicas")
		return n
	}
	assert.Equal(t, int64(3), replicas("cluster1"))
	update(t, "cluster1", deployGVR, ns, "web", "hpa", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, int64(7), "spec", "replicas"))
	})

	write(t, dir, namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx:1.28", 3, "  retainReplicas: true", allClusters, ""))
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "Deployment", ns, "web", propagate.Configured)
	assert.Equal(t, int64(7), replicas("cluster1"))
	assert.Equal(t, int64(3), replicas("cluster2"))
	containers, _, _ := unstructured.NestedSlice(mustGet(t, "cluster1", deployGVR, ns, "web").Object, "spec", "template", "spec", "containers")
	assert.Equal(t, "nginx:1.28", containers[0].(map[string]any)["image"])

	// scaling again is no reason for fedctl to write at all: only the
	// field it leaves to the autoscaler changed
	for _, n := range []int64{5, 9} {
		update(t, "cluster1", deployGVR, ns, "web", "hpa", func(u *unstructured.Unstructured) {
			require.NoError(t, unstructured.SetNestedField(u.Object, n, "spec", "replicas"))
		})
		r = runApply(t, fed, "-f", dir)
		require.NoError(t, r.err)
		assert.Zero(t, r.requests.writes("cluster1"), "scaled to %d: %v", n, r.requests.counts["cluster1"])
		assertAll(t, r, "Deployment", ns, "web", propagate.Unchanged)
		assert.Equal(t, n, replicas("cluster1"))
	}

	// but an edit of a field fedctl sets is put back, replicas still kept
	update(t, "cluster1", deployGVR, ns, "web", "someone", func(u *unstructured.Unstructured) {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		containers[0].(map[string]any)["image"] = "nginx:edited"
		require.NoError(t, unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers"))
	})
	r = runApply(t, fed, "-f", dir, "--force-conflicts")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster1", "Deployment", ns, "web"))
	containers, _, _ = unstructured.NestedSlice(mustGet(t, "cluster1", deployGVR, ns, "web").Object, "spec", "template", "spec", "containers")
	assert.Equal(t, "nginx:1.28", containers[0].(map[string]any)["image"])
	assert.Equal(t, int64(9), replicas("cluster1"))
}

// TestApplyRetainReplicasYieldsToThePlan: KubeFed retains spec.replicas
// and then applies overrides, so an RSP's planned count (and an override
// of /spec/replicas) beats retainReplicas (kubefed#1278): raising
// totalReplicas is applied, where a member without such an override keeps
// its live count.
func TestApplyRetainReplicasYieldsToThePlan(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "retainrsp"
	rsp := func(total int) string {
		return fmt.Sprintf(`---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata:
  name: web
  namespace: %s
spec:
  targetKind: FederatedDeployment
  totalReplicas: %d
  clusters:
    cluster1: {weight: 1}
    cluster2: {weight: 1}
`, ns, total)
	}
	placement := "    clusters: [{name: cluster1}, {name: cluster2}]"
	base := namespaceDoc(ns) + deploymentDoc(ns, "web", "nginx:1.27", 5, "  retainReplicas: true", placement, "") +
		deploymentDoc(ns, "solo", "nginx:1.27", 2, "  retainReplicas: true", placement, "")
	write(t, dir, base+rsp(4))
	require.NoError(t, runApply(t, fed, "-f", dir).err)
	replicas := func(c, name string) int64 {
		n, _, _ := unstructured.NestedInt64(mustGet(t, c, deployGVR, ns, name).Object, "spec", "replicas")
		return n
	}
	assert.Equal(t, []int64{2, 2}, []int64{replicas("cluster1", "web"), replicas("cluster2", "web")})

	// someone scales both; the RSP's plan wins for web, solo keeps its count
	for _, c := range []string{"cluster1", "cluster2"} {
		for _, name := range []string{"web", "solo"} {
			update(t, c, deployGVR, ns, name, "hpa", func(u *unstructured.Unstructured) {
				require.NoError(t, unstructured.SetNestedField(u.Object, int64(7), "spec", "replicas"))
			})
		}
	}
	write(t, dir, base+rsp(10))
	r := runApply(t, fed, "-f", dir)
	// the scaler owns spec.replicas now: server-side apply says so, where
	// KubeFed's controller would overwrite it and fight the HPA
	// (kubefed#1278)
	assertPartial(t, r.err, "cluster1", "cluster2")
	web := r.object("cluster1", "Deployment", ns, "web")
	assert.Equal(t, propagate.ReasonConflict, web.Reason)
	assert.Contains(t, web.Error, `conflict with "hpa" using apps/v1: .spec.replicas`)
	assert.Equal(t, propagate.Unchanged, r.action("cluster1", "Deployment", ns, "solo"), "solo's count is the scaler's to keep")

	r = runApply(t, fed, "-f", dir, "--force-conflicts")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster1", "Deployment", ns, "web"))
	assert.Equal(t, []int64{5, 5}, []int64{replicas("cluster1", "web"), replicas("cluster2", "web")}, "totalReplicas 10, split 1:1")
	assert.Equal(t, int64(7), replicas("cluster1", "solo"), "no plan for solo: its live count stays")
	assert.Equal(t, propagate.Unchanged, r.action("cluster1", "Deployment", ns, "solo"))

	// and a re-run is a no-op
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Unchanged, r.action("cluster1", "Deployment", ns, "web"))
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), c)
	}
}
