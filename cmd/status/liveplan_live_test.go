package status

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/liveplan"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
)

var deploymentsGVR = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

// applyPlanned renders path with plans from the members' live state (as
// apply does, through liveplan), unless offline, and applies it with
// --force-conflicts.
func applyPlanned(t *testing.T, path string, offline bool) {
	t.Helper()
	e := testenv.Require(t, env)
	fed := testFederation()
	in := pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)}
	out, err := pipeline.Run(in)
	require.NoError(t, err)
	access := members.Access{Kubeconfig: e.Kubeconfig}
	in.Live = liveplan.Read(context.Background(), fed, out.Set, liveplan.Options{Access: access, NewClient: members.NewMemberClient, Timeout: 30 * time.Second, OfflinePlan: offline})
	out, err = pipeline.Run(in)
	require.NoError(t, err)
	require.NoError(t, out.Result.Err())
	report := propagate.Run(context.Background(), propagate.Input{
		Result: out.Result, Clusters: fed.Names(), Options: propagate.Options{Force: true},
		Clients: func(name string) (members.Client, error) {
			m, _ := fed.Member(name)
			return members.NewMemberClient(access, m)
		},
	})
	require.Empty(t, report.Failed(), "apply failed: %+v", report.Clusters)
}

func replicasIn(t *testing.T, cluster, ns, name string) (spec, ready int64) {
	t.Helper()
	d, err := client(t, cluster).Resource(deploymentsGVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	spec, _ = d.Object["spec"].(map[string]any)["replicas"].(int64)
	if st, ok := d.Object["status"].(map[string]any); ok {
		ready, _ = st["readyReplicas"].(int64)
	}
	return spec, ready
}

// TestLivePlanKeepsCurrentReplicas: with rebalance false, KubeFed's planner
// keeps replicas where they run. Someone scales cluster1's Deployment from
// 2 to 4 by hand; once the 4 are ready, the live plan keeps them there and
// takes the difference from the others (4/0/2 for 6 replicas), where the
// manifests alone (--offline-plan) plan 2/2/2 again.
func TestLivePlanKeepsCurrentReplicas(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "livers"
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: livers}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: 10m}}}]
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: livers}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
  rebalance: false
  clusters: {"*": {weight: 1}}
`)
	applyPlanned(t, file, false)
	for _, c := range clusterNames {
		spec, _ := replicasIn(t, c, ns, "web")
		assert.Equal(t, int64(2), spec, "the first plan, nothing running yet, in %s", c)
	}

	_, err := client(t, "cluster1").Resource(deploymentsGVR).Namespace(ns).Patch(context.Background(), "web", types.MergePatchType,
		[]byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{FieldManager: "kubectl-scale"})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		for _, c := range clusterNames {
			spec, ready := replicasIn(t, c, ns, "web")
			if spec != ready {
				return false
			}
		}
		return true
	}, 60*time.Second, 200*time.Millisecond, "every member's replicas ready")

	applyPlanned(t, file, false)
	got := map[string]int64{}
	for _, c := range clusterNames {
		got[c], _ = replicasIn(t, c, ns, "web")
	}
	assert.Equal(t, map[string]int64{"cluster1": 4, "cluster2": 0, "cluster3": 2}, got, "rebalance false keeps cluster1's 4 running replicas")

	applyPlanned(t, file, true)
	for _, c := range clusterNames {
		spec, _ := replicasIn(t, c, ns, "web")
		assert.Equal(t, int64(2), spec, "--offline-plan: the manifests' plan in %s", c)
	}
}
