package render_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var members = []placement.Cluster{
	{Name: "a", Labels: map[string]string{"tier": "prod"}},
	{Name: "b", Labels: map[string]string{"tier": "prod"}},
	{Name: "c", Labels: map[string]string{"tier": "dev"}},
}

const shopNamespace = `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusterSelector: {}}}
`

func decode(t *testing.T, text string) *federation.Set {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	set, err := pipeline.Decode(docs, typeconfig.Builtin(), "default", nil)
	require.NoError(t, err)
	return set
}

// summary lists "cluster kind ns/name" plus the value at path of each target.
func summary(res *render.Result, path ...string) []string {
	return summaryOf(res.Targets, path...)
}

// deployments are the targets of kind Deployment.
func deployments(res *render.Result) []render.Target {
	var out []render.Target
	for _, tg := range res.Targets {
		if tg.Type.Kind == "Deployment" {
			out = append(out, tg)
		}
	}
	return out
}

func summaryOf(targets []render.Target, path ...string) []string {
	var out []string
	for _, tg := range targets {
		line := fmt.Sprintf("%s %s %s/%s", tg.Cluster, tg.Type.Kind, tg.Namespace(), tg.Name())
		if len(path) > 0 {
			line += fmt.Sprintf(" %v", dig(tg.Object, path...))
		}
		out = append(out, line)
	}
	return out
}

func dig(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

func warnings(res *render.Result) []string {
	var out []string
	for _, w := range res.Warnings {
		out = append(out, w.Error())
	}
	return out
}

func errs(res *render.Result) []string {
	var out []string
	for _, e := range res.Errors {
		out = append(out, e.Error())
	}
	return out
}

func TestReplicaSchedulingPreference(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec: {replicas: 100}
  placement:
    clusters: [{name: a}]
  overrides:
  - clusterName: a
    clusterOverrides:
    - {path: /spec/replicas, value: 42}
    - {path: /metadata/labels, value: {x: z}}
  - clusterName: c
    clusterOverrides:
    - {path: /metadata/labels, value: {only: c}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 4
  clusters:
    a: {weight: 1}
    b: {weight: 1}
    c: {weight: 0}
`)
	before := fmt.Sprint(set.Objects[1].Spec)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Equal(t, []string{
		"a Deployment shop/web 2",
		"b Deployment shop/web 2",
		"c Deployment shop/web 0",
	}, summaryOf(deployments(res), "spec", "replicas"),
		"the plan beats the user's override and the template, replaces the clusters list, and places a member planned 0")
	assert.Equal(t, map[string]any{"x": "z", "kubefed.io/managed": "true", "app.kubernetes.io/managed-by": "fedctl"}, dig(deployments(res)[0].Object, "metadata", "labels"),
		"the user's other overrides for a member still apply")
	assert.Equal(t, before, fmt.Sprint(set.Objects[1].Spec), "the input is not modified")
}

func TestRSPIntersectWithClusterSelector(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {replicas: 1}}
  placement:
    clusters: [{name: c}]
    clusterSelector: {matchLabels: {tier: prod}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 5, intersectWithClusterSelector: true}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	got := summaryOf(deployments(res), "spec", "replicas")
	require.Len(t, got, 2, "only the members the selector picks are planned; the clusters list is ignored")
	assert.Equal(t, "a Deployment shop/web", got[0][:21])
	assert.Equal(t, "b Deployment shop/web", got[1][:21])
	total := 0
	for _, tg := range deployments(res) {
		total += int(dig(tg.Object, "spec", "replicas").(int64))
	}
	assert.Equal(t, 5, total)
}

// TestRSPIntersectCordonAndNamespace: an RSP with
// intersectWithClusterSelector plans over the selector's members less the
// cordoned ones (no share of a plan there), and within the members the
// FederatedNamespace goes to, as KubeFed's
// ComputeNamespacedPlacement(selectorOnly=true) gives them.
func TestRSPIntersectCordonAndNamespace(t *testing.T) {
	t.Parallel()
	const web = `
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
spec: {targetKind: FederatedDeployment, totalReplicas: 6, intersectWithClusterSelector: true}
`
	cordoned := slices.Clone(members)
	cordoned[0].Cordoned = true
	res := render.ForClusters(render.Input{Set: decode(t, shopNamespace+web), Types: typeconfig.Builtin(), Members: cordoned})
	require.Empty(t, errs(res))
	assert.Equal(t, map[string]int64{"b": 3, "c": 3}, replicasOf(res), "a is cordoned: no share, and no object to create")

	nsOnProd := "\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop}\nspec: {placement: {clusterSelector: {matchLabels: {tier: prod}}}}\n"
	res = render.ForClusters(render.Input{Set: decode(t, nsOnProd+web), Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Equal(t, map[string]int64{"a": 3, "b": 3}, replicasOf(res), "c has no Namespace: planned nothing, not 2 replicas lost")

	// selectorOnly for the namespace too: its clusters list is ignored, so
	// KubeFed plans over nobody and the target keeps its own placement
	nsListed := "\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop}\nspec: {placement: {clusters: [{name: a}, {name: b}]}}\n"
	res = render.ForClusters(render.Input{Set: decode(t, nsListed+web), Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Equal(t, map[string]int64{"a": 1, "b": 1}, replicasOf(res), "no plan: the template's replicas where the Namespace goes")
}

// webPlanned is shop with a Deployment web placed everywhere and an RSP
// planning total replicas of it.
func webPlanned(total int) string {
	return shopNamespace + fmt.Sprintf(`
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
spec: {targetKind: FederatedDeployment, totalReplicas: %d}
`, total)
}

// TestRSPNoMemberToPlanOver: when every member a preference considers is
// cordoned or did not answer, KubeFed's scheduler leaves the object as it
// is; here the replicas are kept as they run, so that a cordoned member
// is not set back to the template's replicas, and a warning says so.
func TestRSPNoMemberToPlanOver(t *testing.T) {
	t.Parallel()
	set := decode(t, webPlanned(4))
	one := []placement.Cluster{{Name: "a", Cordoned: true}}
	live := &render.Live{Answering: []string{"a"}, Replicas: map[string]render.LiveReplicas{
		// mid-rollout: 2 of its 4 ready; what was written is kept
		"FederatedDeployment/shop/web": {Current: map[string]int64{"a": 2}, Spec: map[string]int64{"a": 4}}}}
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: one, Live: live})
	require.Empty(t, errs(res))
	assert.Equal(t, map[string]int64{"a": 4}, replicasOf(res))
	assert.Contains(t, strings.Join(warnings(res), "\n"), "no member to plan over (every member it considers is cordoned or did not answer): the replicas are kept as they run (a 4)")

	res = render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: one})
	assert.Contains(t, strings.Join(warnings(res), "\n"), "FederatedDeployment shop/web is rendered from its own placement and template", "offline, nothing says what runs")
}

// TestScheduleUnreadState: a member answered but the target's state could
// not be read there: the preference is not planned (KubeFed's scheduler
// fails for it alone), the members read keep what they were given, the
// unread member fails the object (nothing sent, nothing removed), and a
// member that did answer for it is not failed over.
func TestScheduleUnreadState(t *testing.T) {
	t.Parallel()
	set := decode(t, webPlanned(9))
	three := []placement.Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	live := &render.Live{Answering: []string{"a", "b", "c"}, Replicas: map[string]render.LiveReplicas{
		"FederatedDeployment/shop/web": {
			Current: map[string]int64{"a": 2, "c": 2}, Spec: map[string]int64{"a": 2, "c": 2},
			Unread: map[string]string{"b": "forbidden"}}}}
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: three, Live: live})
	assert.Equal(t, map[string]int64{"a": 2, "c": 2}, replicasOf(res), "kept as written, not 3/3/3")
	require.Len(t, res.Errors, 1)
	var te *render.TargetError
	require.ErrorAs(t, res.Errors[0], &te)
	assert.Equal(t, "b", te.Cluster, "b fails the object: nothing is sent there")
	assert.Contains(t, te.Error(), "its replica state could not be read for the plan (forbidden)")
	var unread *render.UnreadStateError
	assert.ErrorAs(t, te, &unread, "status tells it from an override's failure")
	assert.NoError(t, res.InputErr(), "one member's failure, not the input's: the rest is applied")
	i := slices.IndexFunc(res.Placed, func(p render.Placed) bool { return p.Object.Name == "web" })
	require.GreaterOrEqual(t, i, 0)
	assert.Equal(t, []string{"a", "b", "c"}, res.Placed[i].Clusters, "still placed in b: nothing removed there")
	assert.Contains(t, strings.Join(warnings(res), "\n"), "the replica state of FederatedDeployment shop/web could not be read in b (forbidden): not planned")
	assert.Contains(t, strings.Join(warnings(res), "\n"), "the members read keep their replicas (a 2, c 2), and nothing is sent to b for it")
}

// replicasOf are the replicas of the Deployments res renders, by member.
func replicasOf(res *render.Result) map[string]int64 {
	out := map[string]int64{}
	for _, tg := range deployments(res) {
		out[tg.Cluster] = dig(tg.Object, "spec", "replicas").(int64)
	}
	return out
}

func TestPlacementAndNamespaces(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusters: [{name: a}, {name: c}, {name: nope}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec: {placement: {clusterSelector: {matchLabels: {tier: prod}}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: orphan, namespace: elsewhere}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: none, namespace: shop}
spec: {placement: {clusters: [], clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: default}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedClusterRole
metadata: {name: reader}
spec:
  template:
    apiVersion: rbac.authorization.k8s.io/v1
    metadata:
      annotations: {dropped: "yes"}
      finalizers: [x]
      labels: {kept: "yes"}
    rules: []
  placement: {clusterSelector: {matchExpressions: [{key: tier, operator: NotIn, values: [prod]}]}}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Equal(t, []string{
		"a Namespace /shop", // install order: Namespaces first
		"a ConfigMap shop/cfg",
		"c Namespace /shop",
		"c ClusterRole /reader",
	}, summary(res), "the ConfigMap is placed where both it and its namespace are; the default namespace is never propagated")
	assert.Equal(t, []string{
		`in.yaml:5: FederatedNamespace shop/shop: spec.placement.clusters: not members, ignored: nope`,
		`in.yaml:14: FederatedConfigMap elsewhere/orphan: metadata.namespace: NamespaceNotFederated: no FederatedNamespace elsewhere in the input, so the object is placed nowhere`,
		`in.yaml:22: FederatedNamespace default/default: namespace default is a system namespace and is never propagated; its placement still applies to the objects in it`,
		`in.yaml:31: FederatedClusterRole reader: spec.template.metadata: annotations and finalizers of the template are not propagated (as in KubeFed); use overrides to set them per cluster`,
	}, warnings(res))
	for _, p := range res.Placed {
		assert.Equal(t, p.Object.Name == "orphan", p.NamespaceNotFederated, "%s: placed nowhere for want of its FederatedNamespace", p.Object.Name)
	}
	role := res.Targets[3].Object
	assert.Equal(t, "rbac.authorization.k8s.io/v1", role["apiVersion"])
	assert.Nil(t, dig(role, "metadata", "namespace"), "a cluster-scoped object has no namespace")
	assert.Nil(t, dig(role, "metadata", "finalizers"))
	assert.Equal(t, map[string]any{"fedctl.io/federated-object": "FederatedClusterRole/reader"}, dig(role, "metadata", "annotations"))
	assert.Equal(t, "yes", dig(role, "metadata", "labels", "kept"))
}

// TestEmptyTemplateMetadataStays: as KubeFed's ObjectForCluster, an empty
// annotations map (or finalizers list) of the template stays, so that an
// override can add to it, and so does a map with a value that is not a
// string; annotations with strings only are cleared, with a warning.
func TestEmptyTemplateMetadataStays(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: empty, namespace: shop}
spec:
  template:
    metadata: {annotations: {}, finalizers: []}
  placement: {clusters: [{name: a}]}
  overrides:
  - clusterName: a
    clusterOverrides: [{op: add, path: /metadata/annotations/team, value: web}]
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: unquoted, namespace: shop}
spec:
  template:
    metadata: {annotations: {prometheus.io/port: 8080}}
  placement: {clusters: [{name: a}]}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Empty(t, warnings(res), "nothing of the templates' metadata is dropped")
	for _, tg := range res.Targets {
		switch tg.Source.Name {
		case "empty":
			assert.Equal(t, "web", dig(tg.Object, "metadata", "annotations", "team"), "the override added to the template's empty map")
			assert.Equal(t, []any{}, dig(tg.Object, "metadata", "finalizers"))
		case "unquoted":
			assert.Equal(t, int64(8080), dig(tg.Object, "metadata", "annotations", "prometheus.io/port"), "kept: KubeFed's GetAnnotations does not read it, and the member refuses it")
		}
	}
}

// TestOverridesOfAnObjectPlacedNowhere: KubeFed reads an object's
// overrides as it propagates it, so wrong overrides of one placed nowhere
// stop nothing; they are warnings at their lines. Placed, they fail it.
func TestOverridesOfAnObjectPlacedNowhere(t *testing.T) {
	t.Parallel()
	text := func(clusters string) string {
		return shopNamespace + `
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec:
  placement: {clusters: ` + clusters + `}
  overrides:
  - clusterName: a
    clusterOverrides: [{path: /metadata/name, value: other}]
`
	}
	res := render.ForClusters(render.Input{Set: decode(t, text("[]")), Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res), "placed nowhere: nothing fails")
	assert.Equal(t, []string{`in.yaml:15: FederatedConfigMap shop/cfg: spec.overrides[0].clusterOverrides[0].path: path "/metadata/name" cannot be overridden: the name associates the federated object with its member objects (placed in no member, the overrides are not used now; they will be refused once it is placed)`}, warnings(res))

	res = render.ForClusters(render.Input{Set: decode(t, text("[{name: a}]")), Types: typeconfig.Builtin(), Members: members})
	require.Len(t, errs(res), 1, "placed: the object fails")
}

func TestOverrideFailureFailsOneMember(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec:
  template: {data: {a: "1"}}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: b
    clusterOverrides:
    - {op: remove, path: /data/missing}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members, Only: []string{"a", "b"}})
	assert.Equal(t, []string{"a Namespace /shop", "a ConfigMap shop/cfg", "b Namespace /shop"}, summary(res), "--cluster limits the output; the failing member is left out")
	require.Len(t, res.Errors, 1)
	assert.True(t, strings.HasPrefix(res.Errors[0].Error(), "cluster b: in.yaml:17: FederatedConfigMap shop/cfg: spec.overrides[0].clusterOverrides[0]: remove /data/missing: "), res.Errors[0].Error())
	assert.Contains(t, res.Errors[0].Error(), "remove /data/missing")
	var te *render.TargetError
	require.ErrorAs(t, res.Errors[0], &te)
	assert.Equal(t, "b", te.Cluster)
}

func TestRSPWithoutTarget(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedReplicaSet, totalReplicas: 3}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	assert.Empty(t, res.Targets)
	assert.Equal(t, []string{"in.yaml:4: ReplicaSchedulingPreference shop/web: metadata.name: no FederatedReplicaSet shop/web in the input; the preference is ignored"}, warnings(res))
}

// TestRetainReplicas: a member keeps its live replica count only where no
// override sets spec.replicas, the RSP's planned count included, as KubeFed
// applies overrides after retaining fields (kubefed#1278).
func TestRetainReplicas(t *testing.T) {
	t.Parallel()
	deployment := func(name, overrides string, retain bool) string {
		return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: %s, namespace: shop}
spec:
  retainReplicas: %t
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
  overrides: %s
`, name, retain, overrides)
	}
	set := decode(t, shopNamespace+
		deployment("plain", "[]", true)+
		deployment("noretain", "[]", false)+
		deployment("user", `[{clusterName: b, clusterOverrides: [{path: /spec/replicas, value: 5}]}, {clusterName: c, clusterOverrides: [{path: /spec, value: {replicas: 2}}]}]`, true)+
		deployment("other", `[{clusterName: a, clusterOverrides: [{path: /spec/paused, value: true}]}]`, true)+
		deployment("rsp", "[]", true)+`---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: rsp, namespace: shop}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 4
  clusters: {a: {weight: 1}, b: {weight: 1}}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.NoError(t, res.Err())
	var got []string
	for _, tg := range deployments(res) {
		got = append(got, fmt.Sprintf("%s %s %t", tg.Name(), tg.Cluster, tg.RetainReplicas))
	}
	assert.ElementsMatch(t, []string{
		"plain a true", "plain b true", "plain c true",
		"noretain a false", "noretain b false", "noretain c false",
		"user a true", "user b false", "user c false",
		"other a true", "other b true", "other c true",
		"rsp a false", "rsp b false", "rsp c false", // c planned 0: placed, with an override
	}, got)
}

// TestIntersectWithABadSelector: an RSP that intersects with a target
// selector that cannot be read plans nothing, as KubeFed's scheduler fails
// on it; the target keeps its own placement, its clusters list, which
// ignores the selector, and its template's replicas.
func TestIntersectWithABadSelector(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {replicas: 1}}
  placement:
    clusters: [{name: a}, {name: b}]
    clusterSelector: {matchExpressions: [{key: tier, operator: In, values: []}]}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6, intersectWithClusterSelector: true}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	var deployments []string
	for _, line := range summary(res, "spec", "replicas") {
		if strings.Contains(line, "Deployment") {
			deployments = append(deployments, line)
		}
	}
	assert.Equal(t, []string{"a Deployment shop/web 1", "b Deployment shop/web 1"}, deployments, "the clusters list, with the template's replicas")
	require.Len(t, warnings(res), 1)
	assert.Contains(t, warnings(res)[0], "spec.intersectWithClusterSelector: plans nothing, as KubeFed's scheduler fails")
}
