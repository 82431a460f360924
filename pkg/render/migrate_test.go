package render_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestMigrations: a migration recorded for member a (fedctl migrate) moves
// the objects it selects to b, replica plans included (b adds a's share),
// and their Namespace follows while staying in a for the rest; objects it
// does not select stay.
func TestMigrations(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusters: [{name: a}, {name: c}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  template: {spec: {replicas: 1}}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 7}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: web-config, namespace: shop, labels: {app: web}}
spec:
  template: {data: {k: v}}
  placement: {clusters: [{name: a}, {name: c}]}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: db-config, namespace: shop, labels: {app: db}}
spec:
  template: {data: {k: v}}
  placement: {clusters: [{name: a}]}
`)
	sel, err := labels.Parse("app=web")
	require.NoError(t, err)
	migrated := []placement.Cluster{
		{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}},
		{Name: "b"},
		{Name: "c"},
	}
	plain := []placement.Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}

	before := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: plain})
	require.Empty(t, errs(before))
	assert.Equal(t, []string{
		"a Namespace /shop <nil>", "a ConfigMap shop/db-config <nil>", "a ConfigMap shop/web-config <nil>", "a Deployment shop/web 3",
		"c Namespace /shop <nil>", "c ConfigMap shop/web-config <nil>", "c Deployment shop/web 3",
	}, summary(before, "spec", "replicas"), "without the migration: b is outside the namespace's placement")

	after := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: migrated})
	require.Empty(t, errs(after))
	assert.Equal(t, []string{
		"a Namespace /shop <nil>", "a ConfigMap shop/db-config <nil>",
		"b Namespace /shop <nil>", "b ConfigMap shop/web-config <nil>", "b Deployment shop/web 4",
		"c Namespace /shop <nil>", "c ConfigMap shop/web-config <nil>", "c Deployment shop/web 3",
	}, summary(after, "spec", "replicas"),
		"b takes a's objects and a's share of the plan (the plan over a, b and c gave a 3, b 1, c 3; b planned 1 is outside the namespace without the migration), c keeps its own; db-config stays in a, and so does the Namespace")
}
