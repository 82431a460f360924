package drain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/capacity"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// renderFor renders input for members a, b and c, with cordoned cordoned
// (a drain's render after: see Run).
func renderFor(t *testing.T, input, cordoned string) (*federation.Set, *render.Result) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(input), 0o600))
	fed := members.New()
	for _, name := range []string{"a", "b", "c"} {
		m := members.Member{Name: name, Labels: map[string]string{"name": name}}
		if name == cordoned {
			m.Cordoned = &members.Cordon{Reason: "drained"}
		}
		require.NoError(t, fed.Put(m, false))
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	return out.Set, out.Result
}

// TestPlacedNowhere: a drain that would leave an object without a member
// (a selector that picks the drained member only) or a workload with
// fewer replicas (a plan that cannot place them elsewhere) says so, and
// one that moves everything says nothing, and so does a workload without
// a plan, which has its replicas in each member; withoutMember leaves nothing on
// the member, and removedElsewhere catches an object leaving another one.
func TestPlacedNowhere(t *testing.T) {
	const input = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 9
  clusters: {"*": {weight: 1, maxReplicas: 3}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: plain, namespace: shop}
spec:
  template: {spec: {replicas: 3}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: only-a, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {matchLabels: {name: a}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: everywhere, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`
	all := func(*federation.Object) bool { return true }
	_, before := renderFor(t, input, "")
	set, afterA := renderFor(t, input, "a")
	after := withoutMember(afterA, "a")
	planned := set.Planned()
	require.Len(t, planned, 1)
	assert.Equal(t, "ReplicaSchedulingPreference shop/web", planned["FederatedDeployment shop/web"].ID())
	for _, tg := range after.Targets {
		assert.NotEqual(t, "a", tg.Cluster, "nothing left on the drained member")
	}
	lost := placedNowhere(before, after, planned, "a", all)
	require.Len(t, lost, 2)
	assert.Regexp(t, `app\.yaml:\d+: FederatedConfigMap shop/only-a: placed on no other member`, lost[0])
	assert.Regexp(t, `app\.yaml:\d+: FederatedDeployment shop/web: 3 of its 9 replicas placed nowhere \(the plan without a cannot place them: maxReplicas, or no preference for the other members\)$`, lost[1])
	assert.Empty(t, removedElsewhere(before, after, "a"))

	assert.Empty(t, placedNowhere(before, before, planned, "a", all), "nothing leaves")
	none := func(*federation.Object) bool { return false }
	assert.Empty(t, placedNowhere(before, after, planned, "a", none), "only the selected objects count")
	gone := removedElsewhere(before, withoutMember(after, "b"), "a")
	require.Len(t, gone, 4, "the Namespace, the two Deployments and the ConfigMap everywhere, from b: %v", gone)
	assert.Regexp(t, `app\.yaml:\d+: FederatedNamespace shop/shop from b`, gone[0])
}

// webOfNine is a Deployment whose RSP splits 9 replicas over the members.
const webOfNine = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 9}
`

// TestReplicaMoves: a member gains what the plan after the drain adds to
// the plan before it, and no more than it runs short: a share already
// running there (cordon, then apply) is no move, and replicas a member
// runs below its plan (capacity, rebalance: false) are none of the
// drain's doing.
func TestReplicaMoves(t *testing.T) {
	beforeSet, beforeRes := renderFor(t, webOfNine, "")
	afterSet, afterRes := renderFor(t, webOfNine, "a")
	before := &cmdutil.Rendered{Set: beforeSet, Result: beforeRes}
	after := &cmdutil.Rendered{Set: afterSet, Result: withoutMember(afterRes, "a")}
	const web = "FederatedDeployment shop/web"
	plan := func(r *cmdutil.Rendered) map[string]int64 { return r.Result.Replicas()[web] }
	require.Equal(t, map[string]int64{"a": 3, "b": 3, "c": 3}, plan(before))
	gains := func(running map[string]map[string]int64) map[string]int64 {
		moves, err := replicaMoves(before, after, "a", running, func(*federation.Object) bool { return true })
		require.NoError(t, err)
		out := map[string]int64{}
		for _, m := range moves {
			out[m.Member] += m.Replicas
		}
		return out
	}
	grow := map[string]int64{}
	for m, n := range plan(after) {
		grow[m] = n - plan(before)[m]
	}
	assert.Equal(t, grow, gains(nil), "nothing read: the plans' difference")
	assert.Empty(t, gains(map[string]map[string]int64{web: plan(after)}), "cordoned and applied: the shares run there already")
	short := map[string]map[string]int64{web: {"a": 3, "b": 3, "c": 1}}
	assert.Equal(t, grow, gains(short), "c runs 1 of its 3: the drain adds its own share, not the 2 c lacked before")
}

// TestCutToNothing: --degrade cuts that leave a workload no replica on any
// member but the one it leaves are found (the drain then needs --force);
// cuts that leave some are not.
func TestCutToNothing(t *testing.T) {
	_, afterRes := renderFor(t, webOfNine, "a")
	after := withoutMember(afterRes, "a")
	const web = "FederatedDeployment shop/web"
	require.Equal(t, map[string]int64{"b": 4, "c": 5}, after.Replicas()[web], "a's share went to b and c")

	some := []capacity.Cut{{Member: "b", Workload: web, Planned: 4, Kept: 0}, {Member: "c", Workload: web, Planned: 5, Kept: 1}}
	assert.Empty(t, cutToNothing(withCuts(after, some), some, "a"), "c keeps one")

	all := []capacity.Cut{{Member: "b", Workload: web, Planned: 4, Kept: 0}, {Member: "c", Workload: web, Planned: 5, Kept: 0}}
	assert.Equal(t, []string{web}, cutToNothing(withCuts(after, all), all, "a"))
	assert.Equal(t, map[string]int64{"b": 4, "c": 5}, after.Replicas()[web], "withCuts copies what it changes")
}

// TestWithNeeds: an evacuation applies the selected objects, their
// namespaces and the CRDs of their types, and nothing else.
func TestWithNeeds(t *testing.T) {
	obj := func(kind, ns, name string) *federation.Object {
		o := &federation.Object{}
		o.Kind, o.Namespace, o.Name = "Federated"+kind, ns, name
		return o
	}
	web, db := obj("Deployment", "shop", "web"), obj("Deployment", "other", "db")
	gizmo := obj("Gizmo", "shop", "g")
	shop, other := obj("Namespace", "shop", "shop"), obj("Namespace", "other", "other")
	gizmos, widgets := obj("CustomResourceDefinition", "", "gizmos.example.com"), obj("CustomResourceDefinition", "", "widgets.example.com")
	crd := func(kind string) map[string]any {
		return map[string]any{"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": kind}}}
	}
	nsType := typeconfig.Type{Version: "v1", Kind: "Namespace"}
	crdType := typeconfig.Type{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	res := &render.Result{Targets: []render.Target{
		{Cluster: "b", Type: nsType, Source: shop}, {Cluster: "b", Type: nsType, Source: other},
		{Cluster: "b", Type: crdType, Source: gizmos, Object: crd("Gizmo")}, {Cluster: "b", Type: crdType, Source: widgets, Object: crd("Widget")},
		{Cluster: "b", Type: typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment"}, Source: web},
		{Cluster: "b", Type: typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment"}, Source: db},
		{Cluster: "b", Type: typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Gizmo"}, Source: gizmo},
	}}
	needed := withNeeds(res, func(o *federation.Object) bool { return o == web || o == gizmo })
	var got []string
	for _, tg := range only(res, needed).Targets {
		got = append(got, tg.Source.Kind+" "+tg.Source.Name)
	}
	assert.Equal(t, []string{"FederatedNamespace shop", "FederatedCustomResourceDefinition gizmos.example.com", "FederatedDeployment web", "FederatedGizmo g"}, got)
}
