package export_test

import (
	"strings"
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

// toKarmada renders input (file in.yaml) for fed and converts it to
// Karmada, with no error.
func toKarmada(t *testing.T, input string, fed []placement.Cluster) (*pipeline.Output, *export.Karmada) {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(input))
	require.NoError(t, err)
	out := renderDocs(t, docs, fed)
	conv, err := export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: fed})
	require.NoError(t, err)
	return out, conv
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
// byte for byte; the only notes are about the ReplicaSchedulingPreferences'
// rules that outlive today's plan (TestSchedulingNotes).
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
			for _, n := range conv.Notes {
				assert.True(t, strings.HasPrefix(n.Object, "ReplicaSchedulingPreference "), n.String())
				assert.Empty(t, n.Members, "no member object differs: %s", n)
			}
			assert.Equal(t, byKey(out.Result), byKey(readBack(t, conv.Documents, fed)))
		})
	}
}

// web is a FederatedDeployment of one replica everywhere in namespace ns.
const web = `apiVersion: types.kubefed.io/v1beta1
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
`

const zeroReplicas = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns, namespace: ns}
spec:
  placement: {clusters: [{name: a}, {name: b}]}
---
` + web + `---
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
	out, conv := toKarmada(t, zeroReplicas, fed)
	var notes []string
	for _, n := range conv.Notes {
		notes = append(notes, n.String())
	}
	assert.Equal(t, []string{
		`in.yaml:26: ReplicaSchedulingPreference ns/web: the "*" weight becomes an explicit weight per current member: a member joined later gets no replicas until the input is converted again`,
		"in.yaml:7: FederatedDeployment ns/web: member b is planned 0 replicas: Karmada removes members divided 0, so it gets no object there (KubeFed keeps a 0-replica object)",
		"in.yaml:28: FederatedConfigMap ns/nowhere: not converted: placed in no member",
	}, notes)
	back := byKey(readBack(t, conv.Documents, fed))
	want := byKey(out.Result)
	delete(want, "b Deployment ns/web") // the note above
	assert.Equal(t, want, back, "the Namespace on a and b only, via the skip label and a ClusterPropagationPolicy")
}

// TestMemberNames: a member Karmada cannot name gets a DNS-1123 label of
// at most 48 characters, said in an informing note; the policies use it,
// and read back for the renamed members they render what the input
// renders. Two members that would get one name are an error.
func TestMemberNames(t *testing.T) {
	t.Parallel()
	long := "a-very-long-cluster-name-that-karmada-will-not-take-x"
	fed := []placement.Cluster{{Name: "eu.west"}, {Name: long}, {Name: "Prod"}}
	docs, err := manifest.Split("in.yaml", []byte(zeroReplicas))
	require.NoError(t, err)
	docs[0].Data = []byte(strings.ReplaceAll(string(docs[0].Data), "[{name: a}, {name: b}]", "[{name: eu.west}, {name: "+long+"}, {name: Prod}]"))
	out := renderDocs(t, docs, fed)
	conv, err := export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: fed})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"eu.west": "eu-west-46bb3d", long: "a-very-long-cluster-name-that-karmada-wil-e9a9b2", "Prod": "prod"}, conv.ClusterNames)
	for member, name := range conv.ClusterNames {
		assert.LessOrEqual(t, len(name), 48, member)
		assert.Regexp(t, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, name, member)
	}
	var renamed []string
	for _, n := range conv.Notes {
		if strings.HasPrefix(n.Object, "member ") {
			assert.True(t, n.Exact)
			renamed = append(renamed, n.Object+": "+n.Message)
		}
	}
	assert.Contains(t, renamed, "member eu.west: Karmada takes cluster names that are DNS-1123 labels of at most 48 characters: it is the Karmada cluster eu-west-46bb3d (register it under that name)")
	assert.Len(t, renamed, 3)
	assert.Contains(t, yamlOf(t, conv.Documents), "- eu-west-46bb3d", "the policies place by the Karmada names")
	diffs, err := export.Verify(conv.Documents, typeconfig.Builtin(), fed, conv.ClusterNames, out.Result, conv.Notes)
	require.NoError(t, err)
	assert.Empty(t, diffs)

	_, err = export.ToKarmada(export.Input{Set: out.Set, Result: out.Result, Members: []placement.Cluster{{Name: "prod"}, {Name: "Prod"}}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `members "Prod" and "prod" would both be the Karmada cluster "prod"; rename one in the federation file first`)
}

func yamlOf(t *testing.T, docs []map[string]any) string {
	t.Helper()
	var b strings.Builder
	for _, d := range docs {
		data, err := yaml.Marshal(d)
		require.NoError(t, err)
		b.Write(data)
	}
	return b.String()
}

const bounded = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns, namespace: ns}
spec:
  placement: {clusterSelector: {}}
---
` + web + `---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: ns}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 9
  rebalance: true
  clusters:
    a: {weight: 1, minReplicas: 5}
    b: {weight: 5, maxReplicas: 2}
    c: {weight: 1}
`

// TestSchedulingNotes: an RSP's minReplicas, maxReplicas and rebalance are
// approximated (Karmada's static weights give today's split only), each
// at its line; the member objects are the same today.
func TestSchedulingNotes(t *testing.T) {
	t.Parallel()
	fed := []placement.Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	out, conv := toKarmada(t, bounded, fed)
	var notes []string
	for _, n := range conv.Notes {
		assert.False(t, n.Exact, n.String())
		notes = append(notes, n.String())
	}
	assert.Equal(t, []string{
		"in.yaml:28: ReplicaSchedulingPreference ns/web: minReplicas/maxReplicas of a, b have no Karmada equivalent: the static weights give today's split of FederatedDeployment ns/web, but Karmada divides by weight alone when members or replicas change",
		"in.yaml:26: ReplicaSchedulingPreference ns/web: rebalance has no Karmada equivalent: Karmada keeps or moves running replicas by its own rules",
	}, notes)
	assert.Equal(t, byKey(out.Result), byKey(readBack(t, conv.Documents, fed)))
}

// TestPlacementByNamesStaysByNames: a placement that lists every member
// today becomes clusterNames, not Karmada's empty affinity, which would
// also send the object to any other cluster of the control plane; only a
// clusterSelector that selects all ({}), its namespace's too, becomes the
// empty affinity (KubeFed sends it to members that join later as well).
func TestPlacementByNamesStaysByNames(t *testing.T) {
	t.Parallel()
	fed := []placement.Cluster{{Name: "a"}, {Name: "b"}}
	out, conv := toKarmada(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: listed-ns}
spec: {placement: {clusters: [{name: a}, {name: b}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: listed, namespace: ns}
spec:
  template: {data: {k: v}}
  placement: {clusters: [{name: a}, {name: b}]}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: everywhere, namespace: ns}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`, fed)
	placements := map[string]any{}
	for _, d := range conv.Documents {
		if d["kind"] != "PropagationPolicy" {
			continue
		}
		spec := d["spec"].(map[string]any)
		name := spec["resourceSelectors"].([]any)[0].(map[string]any)["name"].(string)
		placements[name] = spec["placement"]
	}
	assert.Equal(t, map[string]any{"clusterAffinity": map[string]any{"clusterNames": []any{"a", "b"}}}, placements["listed"])
	assert.Equal(t, map[string]any{}, placements["everywhere"])
	assert.Equal(t, byKey(out.Result), byKey(readBack(t, conv.Documents, fed)))
	// Namespaces: Karmada syncs one to every cluster unless labelled, so
	// the one that names today's members is labelled and placed by names.
	namespaces := map[string]map[string]any{}
	policies := map[string]bool{}
	for _, d := range conv.Documents {
		name, _ := d["metadata"].(map[string]any)["name"].(string)
		switch d["kind"] {
		case "Namespace":
			namespaces[name], _ = d["metadata"].(map[string]any)["labels"].(map[string]any)
		case "ClusterPropagationPolicy":
			policies[name] = true
		}
	}
	assert.Equal(t, "true", namespaces["listed-ns"]["namespace.karmada.io/skip-auto-propagation"])
	assert.NotContains(t, namespaces["ns"], "namespace.karmada.io/skip-auto-propagation", "{}: synced everywhere")
	assert.True(t, policies["namespace-listed-ns"])
	assert.False(t, policies["namespace-ns"])
}

// TestUnsetReplicas: a member whose object sets no spec.replicas is not
// weighed as 0 (Karmada would then give it no object): the template goes
// as it is, Duplicated, and the member that sets a count gets it as an
// override; read back, every member renders what the input renders.
func TestUnsetReplicas(t *testing.T) {
	t.Parallel()
	fed := []placement.Cluster{{Name: "a"}, {Name: "b"}}
	out, conv := toKarmada(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: ns}
spec:
  template:
    spec:
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: a
    clusterOverrides: [{path: /spec/replicas, value: 3}]
`, fed)
	for _, n := range conv.Notes {
		assert.NotContains(t, n.String(), "planned 0 replicas")
	}
	for _, d := range conv.Documents {
		if d["kind"] == "PropagationPolicy" {
			assert.NotContains(t, d["spec"].(map[string]any)["placement"], "replicaScheduling", "Duplicated")
		}
	}
	assert.Equal(t, byKey(out.Result), byKey(readBack(t, conv.Documents, fed)), "b keeps its object, without replicas; a gets 3")
}
