package render_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// sharing renders a Deployment whose members differ in every way that
// touches what render shares between member objects (labels replaced,
// removed and added, annotations added, the replica count planned per
// member) and a ConfigMap without overrides.
const sharing = shopNamespace + `
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    metadata:
      labels: {app: web, tier: front}
      annotations: {dropped: "yes"}
    spec:
      replicas: 1
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: nginx}]
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: a
    clusterOverrides:
    - {path: /metadata/labels, value: {only: a}}
    - {path: /spec/template/spec/containers/0/image, value: nginx:a}
  - clusterName: b
    clusterOverrides:
    - {op: remove, path: /metadata/labels/tier}
    - {op: add, path: /metadata/annotations, value: {note: b}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
  clusters: {a: {weight: 1}, b: {weight: 2}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`

func encode(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

func TestSharingLeavesTheInputAndOtherMembersAlone(t *testing.T) {
	t.Parallel()
	set := decode(t, sharing)
	before := encode(t, set)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	assert.Equal(t, before, encode(t, set), "the input is not modified")

	byCluster := map[string]map[string]any{}
	for _, tg := range deployments(res) {
		byCluster[tg.Cluster] = tg.Object
	}
	marks := map[string]any{"kubefed.io/managed": "true", "app.kubernetes.io/managed-by": "fedctl"}
	withMarks := func(labels map[string]any) map[string]any {
		for k, v := range marks {
			labels[k] = v
		}
		return labels
	}
	assert.Equal(t, withMarks(map[string]any{"only": "a"}), dig(byCluster["a"], "metadata", "labels"), "a replaced its labels")
	assert.Equal(t, withMarks(map[string]any{"app": "web"}), dig(byCluster["b"], "metadata", "labels"), "b removed one")
	assert.Equal(t, withMarks(map[string]any{"app": "web", "tier": "front"}), dig(byCluster["c"], "metadata", "labels"), "c has the template's")
	assert.Equal(t, map[string]any{"note": "b", "fedctl.io/federated-object": "FederatedDeployment/shop/web"}, dig(byCluster["b"], "metadata", "annotations"))
	assert.Equal(t, map[string]any{"fedctl.io/federated-object": "FederatedDeployment/shop/web"}, dig(byCluster["c"], "metadata", "annotations"))
	assert.Equal(t, []any{int64(2), int64(4), int64(0)}, []any{dig(byCluster["a"], "spec", "replicas"), dig(byCluster["b"], "spec", "replicas"), dig(byCluster["c"], "spec", "replicas")},
		"the plan's counts, c planned 0")
	assert.Equal(t, "nginx:a", dig(byCluster["a"], "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["image"])
	assert.Equal(t, "nginx", dig(byCluster["b"], "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["image"])

	again := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	assert.Equal(t, encode(t, res.Targets), encode(t, again.Targets), "rendering again gives the same objects")
}

func TestMembersShareWhatTheyHaveInCommon(t *testing.T) {
	t.Parallel()
	res := render.ForClusters(render.Input{Set: decode(t, sharing), Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	var configMaps []map[string]any
	for _, tg := range res.Targets {
		if tg.Type.Kind == "ConfigMap" {
			configMaps = append(configMaps, tg.Object)
		}
	}
	require.Len(t, configMaps, 3)
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	assert.True(t, same(configMaps[0], configMaps[1]) && same(configMaps[1], configMaps[2]), "members without overrides share one object")

	d := map[string]map[string]any{}
	for _, tg := range deployments(res) {
		d[tg.Cluster] = tg.Object
	}
	assert.False(t, same(d["a"], d["b"]), "members with overrides have their own object")
	assert.True(t, same(dig(d["b"], "spec", "template"), dig(d["c"], "spec", "template")), "and share the parts their overrides left alone")
	assert.False(t, same(dig(d["a"], "spec", "template"), dig(d["c"], "spec", "template")))
	assert.True(t, same(dig(d["a"], "spec", "template", "metadata"), dig(d["c"], "spec", "template", "metadata")))
}

func TestMembersWithTheSameOverridesShareAnObject(t *testing.T) {
	t.Parallel()
	set := decode(t, shopNamespace+`
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: c
    clusterOverrides: [{path: /spec/paused, value: true}]
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`)
	res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Empty(t, errs(res))
	d := deployments(res)
	require.Len(t, d, 3)
	assert.Equal(t, []string{"a Deployment shop/web 2", "b Deployment shop/web 2", "c Deployment shop/web 2"}, summaryOf(d, "spec", "replicas"))
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	assert.True(t, same(d[0].Object, d[1].Object), "a and b are both planned 2 and nothing else: one object")
	assert.False(t, same(d[1].Object, d[2].Object), "c is also paused")
	assert.Equal(t, true, dig(d[2].Object, "spec", "paused"))
	assert.Nil(t, dig(d[1].Object, "spec", "paused"))
}
