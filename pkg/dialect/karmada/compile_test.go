package karmada_test

import (
	"fmt"
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
	{Name: "c1", Labels: map[string]string{"tier": "prod"}, Region: "eu-west-1", Zones: []string{"eu-west-1a"}},
	{Name: "c2", Labels: map[string]string{"tier": "prod"}, Region: "eu-west-2"},
	{Name: "c3", Labels: map[string]string{"tier": "dev"}, Region: "us-east-1", Provider: "gcp"},
}

func renderText(t *testing.T, text string) (*federation.Set, *render.Result, error) {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	set, err := pipeline.Decode(docs, typeconfig.Builtin(), "default", members)
	if set == nil {
		return nil, nil, err
	}
	return set, render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members}), err
}

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: %s
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.27", args: [a, b]}]
`

func doc(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}

// replicasByMember are the replicas render gives each member.
func replicasByMember(res *render.Result) map[string]any {
	out := map[string]any{}
	for _, tg := range res.Targets {
		if tg.Type.Kind == "Deployment" {
			out[tg.Cluster] = tg.Object["spec"].(map[string]any)["replicas"]
		}
	}
	return out
}

func TestCompile(t *testing.T) {
	t.Parallel()
	const pp = `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement: %s
`
	for _, tc := range []struct {
		name      string
		input     string
		wantErr   string
		wantWarn  string
		replicas  map[string]any
		memberErr map[string]string
	}{
		{
			name:     "Duplicated by default, every member",
			input:    doc(deployment, "3") + doc(pp, "{}"),
			replicas: map[string]any{"c1": int64(3), "c2": int64(3), "c3": int64(3)},
		},
		{
			name:     "Divided without weights: equal weights, Webster, ties by name",
			input:    doc(deployment, "4") + doc(pp, "{replicaScheduling: {replicaSchedulingType: Divided}}"),
			replicas: map[string]any{"c1": int64(2), "c2": int64(1), "c3": int64(1)},
		},
		{
			name:     "replicaScheduling {} is Divided by equal weights (the API's default)",
			input:    doc(deployment, "4") + doc(pp, "{replicaScheduling: {}}"),
			replicas: map[string]any{"c1": int64(2), "c2": int64(1), "c3": int64(1)},
		},
		{
			name: "a PropagationPolicy's selector may name its own namespace",
			input: doc(deployment, "2") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: shop}]
`,
			replicas: map[string]any{"c1": int64(2), "c2": int64(2), "c3": int64(2)},
		},
		{
			name: "but not another one",
			input: doc(deployment, "2") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: other}]
`,
			wantErr: `spec.resourceSelectors[0].namespace: is "other", but a namespaced policy selects in its own namespace "shop" only`,
		},
		{
			name: "a fieldOverrider's operation is named by its list, json or yaml",
			input: doc(deployment, "2") + doc(pp, "{}") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  overrideRules:
  - overriders:
      fieldOverrider:
      - fieldPath: /spec/template/metadata/annotations/config
        yaml:
        - {subPath: /a, operator: add, value: x}
        - {subPath: /b, operator: patch, value: y}
`,
			wantErr: `spec.overrideRules[0].overriders.fieldOverrider[0].yaml[1].operator: must be one of`,
		},
		{
			name:     "members divided 0 get no object",
			input:    doc(deployment, "1") + doc(pp, "{replicaScheduling: {replicaSchedulingType: Divided}}"),
			replicas: map[string]any{"c1": int64(1)},
		},
		{
			name:     "unset replicas are 1, as Karmada's API server defaults them before it divides",
			input:    strings.Replace(doc(deployment, "1"), "  replicas: 1\n", "", 1) + doc(pp, "{replicaScheduling: {replicaSchedulingType: Divided}}"),
			replicas: map[string]any{"c1": int64(1)},
		},
		{
			name:     "unset replicas Duplicated: every candidate, left out as each member defaults them to Karmada's 1",
			input:    strings.Replace(doc(deployment, "1"), "  replicas: 1\n", "", 1) + doc(pp, "{}"),
			replicas: map[string]any{"c1": nil, "c2": nil, "c3": nil},
		},
		{
			name:     "replicas 0 without requirements: not divided, every candidate unchanged",
			input:    doc(deployment, "0") + doc(pp, "{replicaScheduling: {replicaSchedulingType: Divided}}"),
			replicas: map[string]any{"c1": int64(0), "c2": int64(0), "c3": int64(0)},
		},
		{
			name:     "fieldSelector on region and labelSelector",
			input:    doc(deployment, "2") + doc(pp, "{clusterAffinity: {labelSelector: {matchLabels: {tier: prod}}, fieldSelector: {matchExpressions: [{key: region, operator: NotIn, values: [eu-west-2]}]}}}"),
			replicas: map[string]any{"c1": int64(2)},
		},
		{
			name:     "clusterAffinities: the first group with a member",
			input:    doc(deployment, "2") + doc(pp, "{clusterAffinities: [{affinityName: none, clusterNames: [nope]}, {affinityName: us, fieldSelector: {matchExpressions: [{key: provider, operator: In, values: [gcp]}]}}]}"),
			replicas: map[string]any{"c3": int64(2)},
		},
		{
			name:    "Aggregated needs capacity: the object fails, at the policy's field",
			input:   doc(deployment, "2") + doc(pp, "{replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated}}"),
			wantErr: "in.yaml:17: PropagationPolicy shop/web: spec.placement.replicaScheduling.replicaDivisionPreference: Divided with replicaDivisionPreference Aggregated needs the members' available capacity, which fedctl does not read; use static weights (scheduling Deployment shop/web, in.yaml:1)",
		},
		{
			name:    "an object no policy selects is an error at its line",
			input:   doc(deployment, "2") + doc(pp, "{}") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: shop}\n",
			wantErr: "in.yaml:19: ConfigMap shop/cfg: no PropagationPolicy (in namespace \"shop\") or ClusterPropagationPolicy selects it",
		},
		{
			name:     "objects in kube-* namespaces are never propagated",
			input:    doc(pp, "{}") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: kube-system}\n",
			wantWarn: "ConfigMap kube-system/cfg: metadata.namespace: ignored: Karmada never propagates objects in kube-system",
			replicas: map[string]any{},
		},
		{
			name: "a PropagationPolicy beats a ClusterPropagationPolicy of higher priority",
			input: doc(deployment, "2") + doc(pp, "{clusterAffinity: {clusterNames: [c2]}}") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: all}
spec:
  priority: 100
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
`,
			replicas: map[string]any{"c2": int64(2)},
		},
		{
			name: "an override that does not apply fails that member only, naming policy, rule and member",
			input: doc(deployment, "1") + doc(pp, "{}") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: broken, namespace: shop}
spec:
  overrideRules:
  - targetCluster: {clusterNames: [c3]}
    overriders:
      plaintext: [{path: /spec/missing, operator: replace, value: 1}]
`,
			replicas:  map[string]any{"c1": int64(1), "c2": int64(1)},
			memberErr: map[string]string{"c3": "cluster c3: OverridePolicy shop/broken rule 0 plaintext[0]: replace /spec/missing: doc is missing key: /spec/missing"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set, res, err := renderText(t, tc.input)
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			if tc.wantWarn != "" {
				require.NotEmpty(t, set.Warnings)
				assert.Contains(t, set.Warnings[0].Error(), tc.wantWarn)
			}
			assert.Equal(t, tc.replicas, replicasByMember(res))
			got := map[string]string{}
			for _, e := range res.Errors {
				te := e.(*render.TargetError)
				got[te.Cluster] = te.Err.Error()
			}
			for c, want := range tc.memberErr {
				assert.Contains(t, got[c], want)
			}
			assert.Len(t, got, len(tc.memberErr))
		})
	}
}

// TestWithoutPolicies: plain objects without any Karmada policy stay "not
// a federated object", as before the dialect.
func TestWithoutPolicies(t *testing.T) {
	t.Parallel()
	_, _, err := renderText(t, doc(deployment, "1"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a federated object")
}

// TestNamespaceSync: a plain Namespace goes to every member, whatever
// policy selects it, and gets the ClusterOverridePolicies that match it;
// default and labelled ones are not synced.
func TestNamespaceSync(t *testing.T) {
	t.Parallel()
	set, res, err := renderText(t, `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: Namespace
metadata: {name: quiet, labels: {namespace.karmada.io/skip-auto-propagation: "true"}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: ns-label}
spec:
  resourceSelectors: [{apiVersion: v1, kind: Namespace}]
  overrideRules:
  - targetCluster: {clusterNames: [c2]}
    overriders:
      labelsOverrider: [{operator: add, value: {team: b}}]
`)
	require.NoError(t, err)
	require.Len(t, set.Warnings, 1)
	assert.Contains(t, set.Warnings[0].Error(), "Namespace quiet: not propagated")
	var clusters []string
	for _, tg := range res.Targets {
		require.Equal(t, "shop", tg.Name())
		clusters = append(clusters, tg.Cluster)
		labels := tg.Object["metadata"].(map[string]any)["labels"].(map[string]any)
		if tg.Cluster == "c2" {
			assert.Equal(t, "b", labels["team"])
		} else {
			assert.NotContains(t, labels, "team")
		}
	}
	assert.Equal(t, []string{"c1", "c2", "c3"}, clusters)
}

// TestClusterAffinitiesFallBackWhenUnschedulable: Karmada tries the next
// clusterAffinities group when one cannot be scheduled, not only when it
// selects no member: a group of one member cannot meet minGroups 2 of a
// cluster spread constraint, so the second group is used; with no group
// left, the failure is the error.
func TestClusterAffinitiesFallBackWhenUnschedulable(t *testing.T) {
	t.Parallel()
	policy := func(groups string) string {
		return doc(deployment, "3") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinities: ` + groups + `
    spreadConstraints: [{spreadByField: cluster, minGroups: 2, maxGroups: 3}]
`
	}
	set, res, err := renderText(t, policy("[{affinityName: small, clusterNames: [c1]}, {affinityName: all}]"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(3), "c2": int64(3), "c3": int64(3)}, replicasByMember(res), "Duplicated on the second group")
	assert.Contains(t, strings.Join(set.Objects[0].Notes, "\n"), `the group before it cannot be scheduled: spreadConstraints: 1 cluster group(s) among the candidates (c1), fewer than minGroups 2`)

	_, _, err = renderText(t, policy("[{affinityName: small, clusterNames: [c1]}]"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "fewer than minGroups 2")
}

// TestSpreadConstraintFilter: Karmada's spreadconstraint filter drops the
// members without the property a constraint spreads by (here only c3 has
// a provider), whatever the strategy, static weights included; and an
// empty weightPreference does not make Karmada ignore the constraints, as
// a static list does.
func TestSpreadConstraintFilter(t *testing.T) {
	t.Parallel()
	policy := func(placement string) string {
		return doc(deployment, "3") + `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement: ` + placement + "\n"
	}
	set, res, err := renderText(t, policy("{spreadConstraints: [{spreadByField: cluster, maxGroups: 3}, {spreadByField: provider, minGroups: 1}]}"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c3": int64(3)}, replicasByMember(res))
	assert.Contains(t, strings.Join(set.Objects[0].Notes, "\n"), "spreadConstraints leave out c1 (no provider), c2 (no provider)")

	_, res, err = renderText(t, policy("{spreadConstraints: [{spreadByField: region, minGroups: 1}], replicaScheduling: {replicaSchedulingType: Divided, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [c1, c2, c3]}, weight: 1}]}}}"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(1), "c2": int64(1), "c3": int64(1)}, replicasByMember(res), "every member has a region")

	_, _, err = renderText(t, policy("{spreadConstraints: [{spreadByField: cluster, minGroups: 4}], replicaScheduling: {replicaSchedulingType: Divided, weightPreference: {}}}"))
	require.Error(t, err, "an empty weightPreference keeps the constraints")
	assert.Contains(t, err.Error(), "fewer than minGroups 4")
	_, _, err = renderText(t, policy("{spreadConstraints: [{spreadByField: cluster, minGroups: 4}], replicaScheduling: {replicaSchedulingType: Divided, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [c1]}, weight: 1}]}}}"))
	assert.NoError(t, err, "a static list ignores them")
}

// TestFederationV1PlacedByPolicy: a Federation v1 workload that a Karmada
// policy selects is placed on the policy's members, and its annotation
// divides the replicas over those only ("*" written out per member).
func TestFederationV1PlacedByPolicy(t *testing.T) {
	t.Parallel()
	set, res, err := renderText(t, `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    federation.kubernetes.io/deployment-preferences: '{"clusters": {"*": {"weight": 1}, "c1": {"weight": 2}}}'
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: prod, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {tier: prod}}}
`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(4), "c2": int64(2)}, replicasByMember(res))
	require.Len(t, set.Objects, 2)
	assert.Contains(t, set.Objects[1].Notes[len(set.Objects[1].Notes)-1], "placed by PropagationPolicy shop/prod; the federation.kubernetes.io/deployment-preferences annotation divides the replicas")
}

// TestFederationV1PlacementEdges: Federation v1's cluster-selector
// annotation places the workload and its replicas on the members it
// accepts only, as Federation v1 planned over those; a policy that selects
// no member places it nowhere (Karmada: no cluster to schedule to); an
// annotation that names none of the policy's members plans 0 in each, as
// Federation v1 gave nothing to a cluster without a preference.
func TestFederationV1PlacementEdges(t *testing.T) {
	t.Parallel()
	workload := func(annotations, policy string) string {
		return `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
` + annotations + `spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
` + policy
	}
	const even = "    federation.kubernetes.io/deployment-preferences: '{\"clusters\": {\"*\": {\"weight\": 1}}}'\n"
	_, res, err := renderText(t, workload(even+"    federation.alpha.kubernetes.io/cluster-selector: '[{\"key\": \"tier\", \"operator\": \"in\", \"values\": [\"prod\"]}]'\n", ""))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(2), "c2": int64(2)}, replicasByMember(res), "c3 is not prod")

	const policy = `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: %s
`
	set, res, err := renderText(t, workload(even, fmt.Sprintf(policy, "{clusterNames: [nope]}")))
	require.NoError(t, err)
	assert.Empty(t, replicasByMember(res), "no member selected: placed nowhere")
	live := &render.Live{Answering: []string{"c1", "c2", "c3"}, Replicas: map[string]render.LiveReplicas{
		"FederatedDeployment/shop/web": {Current: map[string]int64{"c1": 4}, Spec: map[string]int64{"c1": 4}}}}
	res = render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members, Live: live})
	assert.Empty(t, replicasByMember(res), "nowhere with a live read too: what runs is not kept")

	_, res, err = renderText(t, workload("    federation.kubernetes.io/deployment-preferences: '{\"clusters\": {\"c3\": {\"weight\": 1}}}'\n", fmt.Sprintf(policy, "{labelSelector: {matchLabels: {tier: prod}}}")))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(0), "c2": int64(0)}, replicasByMember(res), "c3 is not the policy's; c1 and c2 have no preference")
}

// TestFederationV1EmptyPreferences: an annotation that parses with no
// clusters plans 0 replicas in every member, as Federation v1 did (only a
// missing or unparsable one split evenly).
func TestFederationV1EmptyPreferences(t *testing.T) {
	t.Parallel()
	_, res, err := renderText(t, `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  annotations:
    federation.kubernetes.io/deployment-preferences: '{"rebalance": true}'
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
`)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"c1": int64(0), "c2": int64(0), "c3": int64(0)}, replicasByMember(res))
}

// webPolicies are a PropagationPolicy of Deployment shop/web with
// placement (a YAML flow mapping), and an OverridePolicy of it whose spec
// goes on, after its resourceSelectors, with overrides (YAML lines
// indented two spaces).
func webPolicies(placement, overrides string) string {
	return `---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement: ` + placement + `
---
apiVersion: policy.karmada.io/v1alpha1
kind: OverridePolicy
metadata: {name: web, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
` + overrides
}

// TestOverrideOfDividedReplicas: a plaintext override that sets
// spec.replicas again after Karmada's replica division is applied after
// it, as Karmada does; KubeFed's overrides name a path once per member, so
// the division's replace is folded into the override's (found by the
// conversion's generated round trips).
func TestOverrideOfDividedReplicas(t *testing.T) {
	t.Parallel()
	_, res, err := renderText(t, doc(deployment, "4")+webPolicies("{clusterAffinity: {clusterNames: [c1, c2]}}", `  overrideRules:
  - targetCluster: {clusterNames: [c2]}
    overriders:
      plaintext:
      - {path: /spec/replicas, operator: replace, value: 7}
      - {path: /spec/template/metadata/labels/track, operator: add, value: canary}
`))
	require.NoError(t, err)
	require.NoError(t, res.Err())
	assert.Equal(t, map[string]any{"c1": int64(4), "c2": int64(7)}, replicasByMember(res))
}

// TestOverrideRemovesDividedReplicas: a plaintext remove of /spec/replicas
// (a member whose HPA scales the workload) after the replica division
// leaves the field out there, as Karmada applies both in turn; with
// replicas unset in the manifest, the division's add and the remove
// cancel out.
func TestOverrideRemovesDividedReplicas(t *testing.T) {
	t.Parallel()
	policies := func(removedIn string) string {
		return webPolicies("{clusterAffinity: {clusterNames: [c1, c2]}, replicaScheduling: {replicaSchedulingType: Divided}}", `  overrideRules:
  - targetCluster: {clusterNames: [`+removedIn+`]}
    overriders:
      plaintext: [{path: /spec/replicas, operator: remove}]
`)
	}
	_, res, err := renderText(t, doc(deployment, "4")+policies("c2"))
	require.NoError(t, err)
	require.NoError(t, res.Err())
	assert.Equal(t, map[string]any{"c1": int64(2), "c2": nil}, replicasByMember(res))

	_, res, err = renderText(t, strings.Replace(doc(deployment, "1"), "  replicas: 1\n", "", 1)+policies("c1, c2"))
	require.NoError(t, err)
	require.NoError(t, res.Err())
	assert.Equal(t, map[string]any{"c1": nil}, replicasByMember(res), "its 1 replica divided to c1, then removed there")
}

// TestDeprecatedOverridersBesideRules: as Karmada's webhook, empty
// deprecated overriders, or a fieldOverrider alone (which its check does
// not look at), may stand beside overrideRules and are not used; any
// other overrider there is refused.
func TestDeprecatedOverridersBesideRules(t *testing.T) {
	t.Parallel()
	policies := func(deprecated string) string {
		return webPolicies("{clusterAffinity: {clusterNames: [c1]}}", "  overriders: "+deprecated+`
  overrideRules:
  - overriders:
      plaintext: [{path: /spec/replicas, operator: replace, value: 5}]
`)
	}
	for _, deprecated := range []string{`{}`, `{fieldOverrider: [{fieldPath: /spec/template/metadata/annotations/x, json: [{subPath: /a, operator: add, value: 1}]}]}`} {
		_, res, err := renderText(t, doc(deployment, "2")+policies(deprecated))
		require.NoError(t, err, deprecated)
		require.NoError(t, res.Err(), deprecated)
		assert.Equal(t, map[string]any{"c1": int64(5)}, replicasByMember(res), "the rules apply, the deprecated overriders not: %s", deprecated)
	}
	_, _, err := renderText(t, doc(deployment, "2")+policies(`{plaintext: [{path: /spec/replicas, operator: replace, value: 9}]}`))
	require.ErrorContains(t, err, "overrideRules cannot be used with the deprecated targetCluster and overriders")
}

// TestOverrideAddsAtANegativeIndex: a plaintext add at
// containers/-1 appends, as json-patch v5 does with Karmada's options,
// and the member object render sends agrees with what the overriders
// saw.
func TestOverrideAddsAtANegativeIndex(t *testing.T) {
	t.Parallel()
	_, res, err := renderText(t, doc(deployment, "2")+webPolicies("{clusterAffinity: {clusterNames: [c1]}}", `  overrideRules:
  - overriders:
      plaintext: [{path: /spec/template/spec/containers/-1, operator: add, value: {name: sidecar, image: "envoy:1"}}]
`))
	require.NoError(t, err)
	require.NoError(t, res.Err())
	var names []any
	for _, tg := range res.Targets {
		if tg.Type.Kind == "Deployment" {
			spec := tg.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			for _, c := range spec["containers"].([]any) {
				names = append(names, c.(map[string]any)["name"])
			}
		}
	}
	assert.Equal(t, []any{"web", "sidecar"}, names)
}
