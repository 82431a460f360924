package render_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

const migrationsInput = `
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
`

// TestMigrations: a migration recorded for member a (fedctl migrate) moves
// the objects it selects to b, replica plans included (b adds a's share),
// and their Namespace follows while staying in a for the rest; objects it
// does not select stay.
func TestMigrations(t *testing.T) {
	t.Parallel()
	set := decode(t, migrationsInput)
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

// TestMigrationToMemberThatCannotTakeAShare: a share that a migration sends
// to a cordoned member (which gets no share of any plan) or to one that did
// not answer (which would lose it) is planned over the others instead, and
// a warning says whose and why; the members that migrate nothing are
// planned as before.
func TestMigrationToMemberThatCannotTakeAShare(t *testing.T) {
	t.Parallel()
	set := decode(t, migrationsInput)
	sel, err := labels.Parse("app=web")
	require.NoError(t, err)
	for _, tt := range []struct {
		name    string
		members []placement.Cluster
		live    *render.Live
		want    []string
		warning string
	}{
		{
			name:    "destination cordoned",
			members: []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b", Cordoned: true}, {Name: "c"}},
			want:    []string{"c Deployment shop/web 7"},
			warning: "a (migrated to b, cordoned): planned over the other members, as the migrations there send FederatedDeployment shop/web to members that cannot take a share now; uncordon the destination, or migrate those objects elsewhere (fedctl migrate)",
		},
		{
			name:    "destination not answering",
			members: []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b"}, {Name: "c"}},
			live:    &render.Live{Answering: []string{"a", "c"}, Why: map[string]string{"b": "connection refused"}},
			want:    []string{"c Deployment shop/web 7"},
			warning: "a (migrated to b, did not answer: connection refused): planned over the other members",
		},
		{
			name:    "destination not answering, --no-failover keeps its share",
			members: []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b"}, {Name: "c"}},
			live:    &render.Live{Answering: []string{"a", "c"}, KeepShares: true},
			want:    []string{"b Deployment shop/web 4", "c Deployment shop/web 3"},
		},
		{
			name:    "every share stranded: rendered from its own placement",
			members: []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b", Cordoned: true}, {Name: "c", Cordoned: true}},
			want:    []string{"b Deployment shop/web 1", "c Deployment shop/web 1"},
			warning: "no member to plan over (every member it considers is cordoned or did not answer, or migrates it to one that cannot take a share: a (migrated to b, cordoned))",
		},
		{
			name:    "destination answering",
			members: []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b"}, {Name: "c"}},
			live:    &render.Live{Answering: []string{"a", "b", "c"}},
			want:    []string{"b Deployment shop/web 4", "c Deployment shop/web 3"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: tt.members, Live: tt.live})
			require.Empty(t, errs(res))
			var got []string
			for _, tg := range deployments(res) {
				got = append(got, summaryOf([]render.Target{tg}, "spec", "replicas")...)
			}
			assert.Equal(t, tt.want, got)
			if tt.warning == "" {
				assert.NotContains(t, strings.Join(warnings(res), "\n"), "migrated to")
			} else {
				assert.Contains(t, strings.Join(warnings(res), "\n"), tt.warning)
			}
		})
	}
}
