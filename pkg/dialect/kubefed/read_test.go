package kubefed_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/dialect/kubefed"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func read(t *testing.T, text string) (objects, rsps []string, errs []string, claimed []bool) {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	parsed := make([]dialect.Doc, len(docs))
	for i, doc := range docs {
		parsed[i] = dialect.ParseOne(doc)
	}
	d := kubefed.Dialect{}
	claimed = d.Claim(parsed, make([]bool, len(parsed)))
	set, err := d.Read(dialect.Input{Docs: parsed, Types: typeconfig.Builtin(), DefaultNamespace: "ns"}, claimed)
	for _, o := range set.Objects {
		assert.Equal(t, "KubeFed", o.Origin.Dialect)
		objects = append(objects, o.ID())
	}
	for _, r := range set.RSPs {
		rsps = append(rsps, r.ID())
	}
	if err != nil {
		errs = strings.Split(err.Error(), "\n")
	}
	return objects, rsps, errs, claimed
}

// TestRead: KubeFed's defaulting and validation, every problem at once
// with its line.
func TestRead(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		text          string
		objects, rsps []string
		errs          []string
		claimed       []bool
	}{
		{
			name:    "namespaces default to -n, a FederatedNamespace to itself, cluster-scoped to none",
			text:    "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: a}\n---\napiVersion: types.kubefed.k8s.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop}\n---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedClusterRole\nmetadata: {name: r}\n",
			objects: []string{"FederatedConfigMap ns/a", "FederatedNamespace shop/shop", "FederatedClusterRole r"},
			claimed: []bool{true, true, true},
		},
		{
			name: "invalid objects",
			text: "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedNamespace\nmetadata: {name: shop, namespace: other}\n---\n" +
				"apiVersion: types.kubefed.io/v1beta1\nkind: FederatedClusterRole\nmetadata: {name: r, namespace: shop}\n---\n" +
				"apiVersion: types.kubefed.io/v1beta1\nkind: FederatedSecret\nmetadata: {name: s}\nspec:\n  template: {kind: ConfigMap}\n  placement: {clusters: [{}]}\n",
			errs: []string{
				`in.yaml:3: FederatedNamespace other/shop: metadata.namespace: a FederatedNamespace must be in the namespace it federates: "shop", not "other"`,
				`in.yaml:7: FederatedClusterRole shop/r: metadata.namespace: ClusterRole is cluster-scoped; remove the namespace "shop"`,
				`in.yaml:13: FederatedSecret ns/s: spec.template.kind: is "ConfigMap", but FederatedSecret federates Secret`,
				`in.yaml:14: FederatedSecret ns/s: spec.placement.clusters[0].name: is required`,
			},
			claimed: []bool{true, true, true},
		},
		{
			name:    "strict decoding names the field, with a suggestion",
			text:    "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: a}\nspec: {placment: {}}\n",
			errs:    []string{`in.yaml:4: FederatedConfigMap a: spec: unknown field "placment" (did you mean "placement"?)`},
			claimed: []bool{true},
		},
		{
			name: "RSPs default their namespace and are validated",
			text: "apiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web}\nspec: {targetKind: FederatedDeployment, totalReplicas: 3}\n---\n" +
				"apiVersion: scheduling.kubefed.k8s.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: bad}\nspec:\n  targetKind: FederatedJob\n  totalReplicas: -1\n  clusters: {c1: {weight: -2}}\n",
			rsps: []string{"ReplicaSchedulingPreference ns/web"},
			errs: []string{
				`in.yaml:10: ReplicaSchedulingPreference ns/bad: spec.targetKind: must be FederatedDeployment or FederatedReplicaSet, got "FederatedJob"`,
				`in.yaml:11: ReplicaSchedulingPreference ns/bad: spec.totalReplicas: must not be negative, got -1`,
				`in.yaml:12: ReplicaSchedulingPreference ns/bad: spec.clusters.c1.weight: must not be negative, got -2`,
			},
			claimed: []bool{true, true},
		},
		{
			name: "an RSP without totalReplicas is refused, as KubeFed's CRD requires it",
			text: "apiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web}\nspec:\n  targetKind: FederatedDeployment\n  clusters: {\"*\": {weight: 1}}\n---\n" +
				"{\"apiVersion\": \"scheduling.kubefed.io/v1alpha1\", \"kind\": \"ReplicaSchedulingPreference\", \"metadata\": {\"name\": \"zero\"}, \"spec\": {\"targetKind\": \"FederatedDeployment\", \"totalReplicas\": 0}}\n",
			rsps: []string{"ReplicaSchedulingPreference ns/zero"},
			errs: []string{
				`in.yaml:4: ReplicaSchedulingPreference ns/web: spec: totalReplicas is required`,
			},
			claimed: []bool{true, true},
		},
		{
			name:    "plain objects, other groups and kindless documents are left to others",
			text:    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: types.kubefed.io/v1beta1\nmetadata: {name: nokind}\n---\napiVersion: policy.karmada.io/v1alpha1\nkind: PropagationPolicy\nmetadata: {name: p}\n",
			claimed: []bool{false, false, false},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			objects, rsps, errs, claimed := read(t, tc.text)
			assert.Equal(t, tc.objects, objects)
			assert.Equal(t, tc.rsps, rsps)
			assert.Equal(t, tc.errs, errs)
			assert.Equal(t, tc.claimed, claimed)
		})
	}
}

// TestReadUnknownVersions: a known group at a version fedctl does not read
// is an error naming the versions it reads, not a plain object, and is not
// read as the known version.
func TestReadUnknownVersions(t *testing.T) {
	t.Parallel()
	objects, rsps, errs, claimed := read(t, "apiVersion: types.kubefed.io/v2\nkind: FederatedDeployment\nmetadata: {name: web}\n---\n"+
		"apiVersion: scheduling.kubefed.k8s.io/v1beta1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web}\nspec: {targetKind: FederatedDeployment}\n")
	assert.Equal(t, []bool{true, true}, claimed)
	assert.Empty(t, objects)
	assert.Empty(t, rsps)
	assert.Equal(t, []string{
		"in.yaml:1: FederatedDeployment web: apiVersion: types.kubefed.io/v2 is not a version fedctl reads; FederatedDeployment is read as types.kubefed.io/v1beta1 (or types.kubefed.k8s.io/v1beta1)",
		"in.yaml:5: ReplicaSchedulingPreference web: apiVersion: scheduling.kubefed.k8s.io/v1beta1 is not a version fedctl reads; ReplicaSchedulingPreference is read as scheduling.kubefed.k8s.io/v1alpha1 (or scheduling.kubefed.io/v1alpha1)",
	}, errs)
}
