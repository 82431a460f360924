package fedv1_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func decode(t *testing.T, text string) (*federation.Set, []string) {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	set, err := pipeline.Decode(docs, typeconfig.Builtin(), "ns", nil)
	var errs []string
	if err != nil {
		errs = strings.Split(err.Error(), "\n")
	}
	return set, errs
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
  annotations:
    note: kept
    federation.kubernetes.io/deployment-preferences: %s
spec:
  replicas: 9
  template:
    spec:
      containers: [{name: web, image: nginx}]
`

func withPrefs(prefs string) string { return strings.Replace(deployment, "%s", prefs, 1) }

// TestReadWorkload: a Deployment with its annotation is a FederatedDeployment
// placed on every member and an RSP of the same name, whose total is the
// Deployment's replicas; the annotation is not in the template.
func TestReadWorkload(t *testing.T) {
	t.Parallel()
	set, errs := decode(t, withPrefs(`'{"rebalance": true, "clusters": {"eu-1": {"minReplicas": 2, "maxReplicas": 5, "weight": 3}, "*": {"weight": 1}}}'`))
	require.Empty(t, errs)
	require.Len(t, set.Objects, 1)
	obj := set.Objects[0]
	assert.Equal(t, "FederatedDeployment ns/web", obj.ID(), "the namespace defaults to -n")
	assert.Equal(t, "Federation v1", obj.Origin.Dialect)
	assert.Equal(t, map[string]string{"app": "web"}, obj.Labels, "-l selects by the workload's labels")
	assert.Equal(t, federation.Placement{ClusterSelector: obj.Spec.Placement.ClusterSelector}, obj.Spec.Placement)
	require.NotNil(t, obj.Spec.Placement.ClusterSelector)
	assert.Empty(t, obj.Spec.Placement.ClusterSelector.MatchLabels, "every member")
	assert.Equal(t, map[string]any{"labels": map[string]any{"app": "web"}, "annotations": map[string]any{"note": "kept"}}, obj.Spec.Template["metadata"])
	assert.NotContains(t, obj.Spec.Template, "apiVersion")
	assert.Equal(t, "in.yaml", obj.Pos.File())
	assert.Equal(t, 1, obj.Pos.Line("spec.template.spec.replicas"), "errors about the template point at the document")

	require.Len(t, set.RSPs, 1)
	rsp := set.RSPs[0]
	assert.Equal(t, "ns", rsp.Namespace)
	assert.Equal(t, "web", rsp.Name)
	five := int64(5)
	assert.Equal(t, federation.RSPSpec{TargetKind: "FederatedDeployment", TotalReplicas: 9, Rebalance: true,
		Clusters: map[string]federation.ClusterPreferences{"eu-1": {MinReplicas: 2, MaxReplicas: &five, Weight: 3}, "*": {Weight: 1}}}, rsp.Spec)
}

func TestReadPreferences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, prefs string
		want        federation.RSPSpec
		warning     string
		errs        []string
	}{
		{name: "field names in any case, unknown fields ignored, as Federation v1's untagged struct",
			prefs: `'{"Rebalance": true, "CLUSTERS": {"a": {"MinReplicas": 1, "Weight": 2, "color": "red"}}, "extra": 1}'`,
			want:  federation.RSPSpec{TargetKind: "FederatedDeployment", TotalReplicas: 9, Rebalance: true, Clusters: map[string]federation.ClusterPreferences{"a": {MinReplicas: 1, Weight: 2}}}},
		// Federation v1 defaulted only a missing or unparsable annotation
		// (pkg/federatedtypes/scheduling.go); a parsed one with no
		// clusters planned 0 everywhere, which weight 0 for "*" keeps.
		{name: "empty: no preferences, 0 replicas everywhere as Federation v1 planned them",
			prefs: `'{}'`,
			want:  federation.RSPSpec{TargetKind: "FederatedDeployment", TotalReplicas: 9, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 0}}}},
		{name: "JSON that does not parse: the even split, with a warning at the annotation",
			prefs:   `'{"clusters": '`,
			want:    federation.RSPSpec{TargetKind: "FederatedDeployment", TotalReplicas: 9, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}},
			warning: "in.yaml:8: Deployment web: metadata.annotations.federation.kubernetes.io/deployment-preferences: is not valid JSON (unexpected end of JSON input); the replicas are divided evenly over every member, as Federation v1 did"},
		{name: "negative values are errors at the annotation",
			prefs: `'{"clusters": {"a": {"weight": -1}, "b": {"minReplicas": -2}}}'`,
			errs: []string{
				"in.yaml:8: Deployment web: metadata.annotations.federation.kubernetes.io/deployment-preferences: clusters.a.weight must not be negative, got -1",
				"in.yaml:8: Deployment web: metadata.annotations.federation.kubernetes.io/deployment-preferences: clusters.b.minReplicas must not be negative, got -2",
			}},
		{name: "not a string", prefs: `{clusters: {}}`,
			errs: []string{`in.yaml:8: Deployment web: metadata.annotations.federation.kubernetes.io/deployment-preferences: must be a string holding JSON, e.g. '{"clusters": {"*": {"weight": 1}}}'`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, errs := decode(t, withPrefs(tc.prefs))
			assert.Equal(t, tc.errs, errs)
			if tc.errs != nil {
				return
			}
			require.Len(t, set.RSPs, 1)
			assert.Equal(t, tc.want, set.RSPs[0].Spec)
			var warnings []string
			for _, w := range set.Warnings {
				warnings = append(warnings, w.Error())
			}
			if tc.warning == "" {
				assert.Empty(t, warnings)
			} else {
				assert.Equal(t, []string{tc.warning}, warnings)
			}
		})
	}
}

// TestReadClaims: Namespaces are read only beside Federation v1 workloads;
// a workload without its annotation, or with the other kind's, stays "not a
// federated object"; an old apiVersion is named.
func TestReadClaims(t *testing.T) {
	t.Parallel()
	ns := "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n---\n"

	set, errs := decode(t, ns+withPrefs(`'{}'`))
	require.Empty(t, errs)
	var ids []string
	for _, o := range set.Objects {
		ids = append(ids, o.ID())
	}
	assert.Equal(t, []string{"FederatedNamespace shop/shop", "FederatedDeployment ns/web"}, ids, "input order")
	assert.Equal(t, map[string]any{"metadata": map[string]any{"labels": map[string]any{"team": "a"}}}, map[string]any(set.Objects[0].Spec.Template))

	_, errs = decode(t, ns)
	assert.Equal(t, []string{`in.yaml:1: Namespace shop: is not a federated object; convert it with "fedctl federate -f in.yaml"`}, errs, "no Federation v1 workload: a plain Namespace is not read")

	_, errs = decode(t, strings.Replace(withPrefs(`'{}'`), "kind: Deployment", "kind: ReplicaSet", 1))
	assert.Equal(t, []string{`in.yaml:1: ReplicaSet web: is not a federated object; convert it with "fedctl federate -f in.yaml"`}, errs, "a ReplicaSet reads replica-set-preferences")

	_, errs = decode(t, strings.Replace(withPrefs(`'{}'`), "apps/v1", "extensions/v1beta1", 1))
	assert.Equal(t, []string{"in.yaml:1: Deployment web: apiVersion: extensions/v1beta1 is not a version fedctl reads for a Federation v1 Deployment; write it as apps/v1 (the annotation is read there)"}, errs)

	_, errs = decode(t, withPrefs(`'{}'`)+"---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedDeployment\nmetadata: {name: web, namespace: ns}\n")
	assert.Equal(t, []string{"in.yaml:17: FederatedDeployment ns/web: metadata.name: defined twice (also at in.yaml:1)"}, errs, "one model: the dialects' objects collide")
}

// TestReadClusterSelector: Federation v1's cluster-selector annotation
// becomes the placement's clusterSelector, operator spellings mapped;
// what a label selector cannot say is an error at the annotation.
func TestReadClusterSelector(t *testing.T) {
	t.Parallel()
	with := func(sel string) string {
		return strings.Replace(withPrefs(`'{}'`), "    note: kept\n", "    note: kept\n    federation.alpha.kubernetes.io/cluster-selector: '"+sel+"'\n", 1)
	}
	set, errs := decode(t, with(`[{"key": "region", "operator": "==", "values": ["eu"]}, {"key": "tier", "operator": "!=", "values": ["test"]}, {"key": "pci", "operator": "exists"}, {"key": "old", "operator": "!"}]`))
	require.Empty(t, errs)
	obj := set.Objects[0]
	assert.Equal(t, &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
		{Key: "region", Operator: metav1.LabelSelectorOpIn, Values: []string{"eu"}},
		{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"test"}},
		{Key: "pci", Operator: metav1.LabelSelectorOpExists},
		{Key: "old", Operator: metav1.LabelSelectorOpDoesNotExist},
	}}, obj.Spec.Placement.ClusterSelector)
	assert.Equal(t, map[string]any{"note": "kept"}, obj.Spec.Template["metadata"].(map[string]any)["annotations"], "neither annotation is sent to members")

	_, errs = decode(t, with(`[{"key": "cores", "operator": "gt", "values": ["4"]}, {"key": "a", "operator": "like"}, {"key": "b", "operator": "in"}]`))
	assert.Equal(t, []string{
		`in.yaml:8: Deployment web: metadata.annotations.federation.alpha.kubernetes.io/cluster-selector: term 0: operator "gt" compares numbers, which a label selector cannot; select the members by In or NotIn on their labels`,
		`in.yaml:8: Deployment web: metadata.annotations.federation.alpha.kubernetes.io/cluster-selector: term 1: unknown operator "like"; Federation v1's are in, notin, =, ==, !=, exists and !`,
		`in.yaml:8: Deployment web: metadata.annotations.federation.alpha.kubernetes.io/cluster-selector: term 2: operator "in" needs values`,
	}, errs)

	_, errs = decode(t, with(`{"key": "x"}`))
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0], "cluster-selector: is not a JSON list of {key, operator, values}")
}
