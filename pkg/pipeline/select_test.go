package pipeline

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// selectInput: a FederatedNamespace placed in c1 only, two Deployments with
// an RSP each, and a ConfigMap, with labels to select by.
const selectInput = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop, labels: {layer: base}}
spec: {placement: {clusters: [{name: c1}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop, labels: {app: web, tier: front}}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: api, namespace: shop, labels: {app: api, tier: back}}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: settings, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 4}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: api, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`

// TestSelect: -l keeps the federated objects whose own labels match, with
// kubectl's selector syntax; the RSPs of the kept objects apply as usual
// (each plans over c1 and c2, and the FederatedNamespace keeps c1's
// share), and an unselected FederatedNamespace still places its
// namespace's objects: a selected object renders exactly as without -l.
func TestSelect(t *testing.T) {
	t.Parallel()
	types, err := typeconfig.NewRegistry(nil, nil)
	require.NoError(t, err)
	members := []placement.Cluster{{Name: "c1"}, {Name: "c2"}}
	docs, err := manifest.Split("in.yaml", []byte(selectInput))
	require.NoError(t, err)
	full, err := Run(Input{Docs: docs, Members: members, Types: types, DefaultNamespace: "default"})
	require.NoError(t, err)
	for _, tc := range []struct {
		selector    string
		wantObjects []string
		wantRSPs    []string
		// wantTargets are cluster/kind/name=replicas ("-" for no replicas)
		wantTargets []string
	}{
		{
			selector:    "app=web",
			wantObjects: []string{"FederatedDeployment shop/web"},
			wantRSPs:    []string{"web"},
			wantTargets: []string{"c1/Deployment/web=2"},
		},
		{
			selector:    "tier in (front, back)",
			wantObjects: []string{"FederatedDeployment shop/web", "FederatedDeployment shop/api"},
			wantRSPs:    []string{"web", "api"},
			wantTargets: []string{"c1/Deployment/api=3", "c1/Deployment/web=2"},
		},
		{
			selector:    "!app",
			wantObjects: []string{"FederatedNamespace shop/shop", "FederatedConfigMap shop/settings"},
			wantTargets: []string{"c1/Namespace/shop=-", "c1/ConfigMap/settings=-"},
		},
		{
			selector:    "app!=web,tier",
			wantObjects: []string{"FederatedDeployment shop/api"},
			wantRSPs:    []string{"api"},
			wantTargets: []string{"c1/Deployment/api=3"},
		},
		{selector: "app=none"},
	} {
		t.Run(tc.selector, func(t *testing.T) {
			t.Parallel()
			sel, err := labels.Parse(tc.selector)
			require.NoError(t, err)
			out, err := Run(Input{
				Docs: docs, Selector: sel, Members: members, Types: types, DefaultNamespace: "default",
			})
			require.NoError(t, err)
			require.NoError(t, out.Result.Err())
			var objs, rsps, targets []string
			for _, o := range out.Set.Objects {
				objs = append(objs, o.ID())
			}
			for _, r := range out.Set.RSPs {
				rsps = append(rsps, r.Name)
			}
			for _, tg := range out.Result.Targets {
				replicas := "-"
				if spec, ok := tg.Object["spec"].(map[string]any); ok && spec["replicas"] != nil {
					replicas = fmt.Sprint(spec["replicas"])
				}
				targets = append(targets, tg.Cluster+"/"+tg.Type.Kind+"/"+tg.Name()+"="+replicas)
			}
			assert.Equal(t, tc.wantObjects, objs)
			assert.Equal(t, tc.wantRSPs, rsps)
			assert.Equal(t, tc.wantTargets, targets)
			assert.Len(t, out.Set.Unselected, 4-len(tc.wantObjects))
			var fromFull []any
			for _, tg := range full.Result.Targets {
				if sel.Matches(labels.Set(tg.Source.Labels)) {
					fromFull = append(fromFull, tg.Object)
				}
			}
			var got []any
			for _, tg := range out.Result.Targets {
				got = append(got, tg.Object)
			}
			assert.Equal(t, fromFull, got, "the selected objects render as without -l")
			for _, w := range out.Result.Warnings {
				assert.NotContains(t, w.Error(), "NamespaceNotFederated", "the unselected FederatedNamespace still places")
			}
		})
	}
}

// TestSelectStillDecodesEverything: a broken document is an error with -l
// too, as with kubectl.
func TestSelectStillDecodesEverything(t *testing.T) {
	t.Parallel()
	types, err := typeconfig.NewRegistry(nil, nil)
	require.NoError(t, err)
	text := selectInput + "---\napiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: bad, namespace: shop}\nspec: {placment: {}}\n"
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	_, err = Run(Input{
		Docs:     docs,
		Selector: labels.SelectorFromSet(labels.Set{"app": "web"}), Members: []placement.Cluster{{Name: "c1"}}, Types: types,
	})
	assert.EqualError(t, err, `in.yaml:38: FederatedConfigMap shop/bad: spec: unknown field "placment" (did you mean "placement"?)`)
}
