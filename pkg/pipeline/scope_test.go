package pipeline_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestNamespaceScoped: in a federation scoped to "team", objects without a
// namespace go there and are placed by their own placement (no
// FederatedNamespace needed); one for team limits them and is never
// rendered; the rest is an error at its line, and left out.
func TestNamespaceScoped(t *testing.T) {
	docs, err := manifest.Split("in.yaml", []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: a}
spec: {template: {data: {k: v}}, placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: b, namespace: other}
spec: {template: {data: {k: v}}, placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedClusterRole
metadata: {name: r}
spec: {template: {rules: []}, placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: other, namespace: other}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: other}
spec: {targetKind: FederatedDeployment, totalReplicas: 1}
`))
	require.NoError(t, err)
	members := []placement.Cluster{{Name: "c1"}, {Name: "c2"}}
	out, err := pipeline.Run(pipeline.Input{Docs: docs, DefaultNamespace: "team", Namespace: "team", Members: members, Types: typeconfig.Builtin()})
	require.Error(t, err)
	msgs := err.Error()
	assert.Contains(t, msgs, `in.yaml:8: FederatedConfigMap other/b: metadata.namespace: is "other", outside the federation's namespace team`)
	assert.Contains(t, msgs, "in.yaml:12: FederatedClusterRole r: kind: ClusterRole is cluster-scoped")
	assert.Contains(t, msgs, "in.yaml:18: FederatedNamespace other/other: metadata.name: the federation is scoped to namespace team")
	assert.Contains(t, msgs, `in.yaml:23: ReplicaSchedulingPreference other/web: metadata.namespace: is "other"`)
	var got []string
	for _, tg := range out.Result.Targets {
		got = append(got, tg.Cluster+" "+tg.Namespace()+"/"+tg.Name())
	}
	assert.Equal(t, []string{"c1 team/a", "c2 team/a"}, got, "placed without a FederatedNamespace; the rest left out")
	assert.Equal(t, "team", out.Result.Namespace)

	docs, err = manifest.Split("in.yaml", []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: team, namespace: team}
spec: {placement: {clusters: [{name: c2}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: a}
spec: {template: {data: {k: v}}, placement: {clusterSelector: {}}}
`))
	require.NoError(t, err)
	out, err = pipeline.Run(pipeline.Input{Docs: docs, DefaultNamespace: "team", Namespace: "team", Members: members, Types: typeconfig.Builtin()})
	require.NoError(t, err)
	require.Len(t, out.Result.Targets, 1, "the FederatedNamespace limits, and is not rendered")
	assert.Equal(t, "c2", out.Result.Targets[0].Cluster)
	assert.Equal(t, "ConfigMap", out.Result.Targets[0].Type.Kind)
}
