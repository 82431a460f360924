package export_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func renderDocs(t *testing.T, docs []manifest.Document, fed []placement.Cluster) *pipeline.Output {
	t.Helper()
	out, err := pipeline.Run(pipeline.Input{Docs: docs, DefaultNamespace: "default", Members: fed, Types: typeconfig.Builtin()})
	require.NoError(t, err)
	require.NoError(t, out.Result.Err())
	return out
}

// readBack renders converted documents as Karmada input.
func readBack(t *testing.T, docs []map[string]any, fed []placement.Cluster) *render.Result {
	t.Helper()
	var in []manifest.Document
	for i, d := range docs {
		data, err := yaml.Marshal(d)
		require.NoError(t, err)
		in = append(in, manifest.Document{File: "converted", Line: i + 1, Data: data})
	}
	return renderDocs(t, in, fed).Result
}

func byKey(res *render.Result) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, t := range res.Targets {
		out[t.Cluster+" "+t.Type.Kind+" "+t.Namespace()+"/"+t.Name()] = t.Object
	}
	return out
}

// TestRoundTrip: every input dialect's examples, converted to Karmada and
// read back by fedctl's Karmada dialect, render the same member objects,
// byte for byte, with no note.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, federation string }{
		{"../../testdata/examples", "three-clusters.yaml"},
		{"../../testdata/manifests/fedv1", "three-clusters.yaml"},
		{"../../testdata/manifests/override-selectors", "three-clusters.yaml"},
		{"../../testdata/manifests/mixed", "three-clusters.yaml"},
		{"../../testdata/karmada", "three-regions.yaml"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			t.Parallel()
			file, err := members.Load("../../testdata/federation/" + tc.federation)
			require.NoError(t, err)
			fed := file.Federation.PlacementClusters()
			out := renderDocs(t, testutil.Documents(t, tc.dir), fed)
			conv, err := export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: fed})
			require.NoError(t, err)
			assert.Empty(t, conv.Notes)
			assert.Equal(t, byKey(out.Result), byKey(readBack(t, conv.Documents, fed)))
		})
	}
}

const zeroReplicas = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns, namespace: ns}
spec:
  placement: {clusters: [{name: a}, {name: b}]}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: ns}
spec:
  template:
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: ns}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 1
  clusters: {"*": {weight: 1}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: nowhere, namespace: ns}
spec:
  placement: {clusters: []}
`

// TestNotes: what Karmada cannot express as fedctl renders it is said, with
// where: a member planned 0 replicas gets no object, a Namespace placed on
// some members opts out of Karmada's namespace sync, an object placed
// nowhere is left out.
func TestNotes(t *testing.T) {
	t.Parallel()
	fed := []placement.Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	docs, err := manifest.Split("in.yaml", []byte(zeroReplicas))
	require.NoError(t, err)
	out := renderDocs(t, docs, fed)
	conv, err := export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: fed})
	require.NoError(t, err)
	var notes []string
	for _, n := range conv.Notes {
		notes = append(notes, n.String())
	}
	assert.Equal(t, []string{
		"in.yaml:7: FederatedDeployment ns/web: member b is planned 0 replicas: Karmada removes members divided 0, so it gets no object there (KubeFed keeps a 0-replica object)",
		"in.yaml:28: FederatedConfigMap ns/nowhere: not converted: placed in no member",
	}, notes)
	back := byKey(readBack(t, conv.Documents, fed))
	want := byKey(out.Result)
	delete(want, "b Deployment ns/web") // the note above
	assert.Equal(t, want, back, "the Namespace on a and b only, via the skip label and a ClusterPropagationPolicy")
}

// TestMemberNames: a member Karmada cannot name is an error, before
// anything is written.
func TestMemberNames(t *testing.T) {
	t.Parallel()
	fed := []placement.Cluster{{Name: "eu.west"}, {Name: "a-very-long-cluster-name-that-karmada-will-not-take-x"}}
	docs, err := manifest.Split("in.yaml", []byte(zeroReplicas))
	require.NoError(t, err)
	out := renderDocs(t, docs, fed)
	_, err = export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: fed})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `member "eu.west" cannot be a Karmada cluster name`)
	assert.Contains(t, err.Error(), `member "a-very-long-cluster-name-that-karmada-will-not-take-x" cannot be`)
}
