package explain_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/explain"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/planner"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

func decode(t *testing.T, text string) *federation.Set {
	t.Helper()
	docs, err := manifest.Split("in.yaml", []byte(text))
	require.NoError(t, err)
	set, err := pipeline.Decode(docs, typeconfig.Builtin(), "default", nil)
	require.NoError(t, err, text)
	return set
}

// generator makes random federations and inputs: a FederatedNamespace (or
// none), a FederatedDeployment with random placement and overrides
// (some of which fail), and often a ReplicaSchedulingPreference for it.
type generator struct{ r *rand.Rand }

var (
	clusterNames = []string{"a", "b", "c", "eu-1", "us-east", "ap-northeast"}
	labelKeys    = []string{"region", "tier"}
	labelValues  = []string{"eu", "us", "prod"}
)

func (g *generator) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *generator) members() []placement.Cluster {
	names := slices.Clone(clusterNames)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	var out []placement.Cluster
	for _, n := range names[:1+g.r.IntN(len(names))] {
		labels := map[string]string{}
		for _, k := range labelKeys {
			if g.r.IntN(3) > 0 {
				labels[k] = g.pick(labelValues)
			}
		}
		out = append(out, placement.Cluster{Name: n, Labels: labels})
	}
	return out
}

func (g *generator) placement() map[string]any {
	switch g.r.IntN(5) {
	case 0:
		return map[string]any{}
	case 1:
		var list []any
		for range g.r.IntN(4) {
			list = append(list, map[string]any{"name": g.pick(append(clusterNames, "nope"))})
		}
		if list == nil {
			list = []any{}
		}
		return map[string]any{"clusters": list}
	case 2:
		return map[string]any{"clusterSelector": map[string]any{}}
	}
	sel := map[string]any{}
	if g.r.IntN(2) == 0 {
		sel["matchLabels"] = map[string]any{g.pick(labelKeys): g.pick(labelValues)}
	}
	var exprs []any
	for range g.r.IntN(3) {
		op := g.pick([]string{"In", "NotIn", "Exists", "DoesNotExist"})
		e := map[string]any{"key": g.pick(labelKeys), "operator": op}
		if op == "In" || op == "NotIn" {
			e["values"] = []any{g.pick(labelValues), g.pick(labelValues)}
		}
		exprs = append(exprs, e)
	}
	if exprs != nil {
		sel["matchExpressions"] = exprs
	}
	return map[string]any{"clusterSelector": sel}
}

func (g *generator) overrides() []any {
	var out []any
	names := slices.Clone(clusterNames)
	g.r.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	for _, n := range names[:g.r.IntN(4)] {
		var items []any
		for _, path := range []string{"/spec/replicas", "/spec/paused", "/metadata/labels/x", "/spec/template/spec/nodeSelector/disk", "/spec/minReadySeconds"} {
			if g.r.IntN(3) > 0 {
				continue
			}
			item := map[string]any{"path": path, "value": g.r.IntN(9)}
			if g.r.IntN(3) == 0 {
				item["op"] = "add"
			}
			items = append(items, item)
		}
		out = append(out, map[string]any{"clusterName": n, "clusterOverrides": items})
	}
	return out
}

func (g *generator) preferences() map[string]any {
	prefs := map[string]any{}
	for _, n := range append(clusterNames, "*") {
		if g.r.IntN(3) > 0 {
			continue
		}
		p := map[string]any{}
		if g.r.IntN(2) == 0 {
			p["minReplicas"] = g.r.IntN(6)
		}
		if g.r.IntN(2) == 0 {
			p["maxReplicas"] = g.r.IntN(12)
		}
		if g.r.IntN(4) > 0 {
			p["weight"] = g.r.IntN(4)
		}
		prefs[n] = p
	}
	return prefs
}

func doc(v map[string]any) string {
	data, _ := json.Marshal(v)
	return "---\n" + string(data) + "\n"
}

func (g *generator) input() string {
	var b strings.Builder
	if g.r.IntN(5) > 0 {
		b.WriteString(doc(map[string]any{
			"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedNamespace",
			"metadata": map[string]any{"name": "shop"}, "spec": map[string]any{"placement": g.placement()},
		}))
	}
	b.WriteString(doc(map[string]any{
		"apiVersion": "types.kubefed.io/v1beta1", "kind": "FederatedDeployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop"},
		"spec": map[string]any{
			"template":  map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": map[string]any{"replicas": 1, "template": map[string]any{"spec": map[string]any{}}}},
			"placement": g.placement(),
			"overrides": g.overrides(),
		},
	}))
	if g.r.IntN(4) > 0 {
		b.WriteString(doc(map[string]any{
			"apiVersion": "scheduling.kubefed.io/v1alpha1", "kind": "ReplicaSchedulingPreference",
			"metadata": map[string]any{"name": "web", "namespace": "shop"},
			"spec": map[string]any{
				"targetKind": "FederatedDeployment", "totalReplicas": g.r.IntN(40), "rebalance": g.r.IntN(2) == 0,
				"intersectWithClusterSelector": g.r.IntN(3) == 0, "clusters": g.preferences(),
			},
		}))
	}
	return b.String()
}

// unmarked is a member object without fedctl's markers, which render adds
// after the overrides.
func unmarked(obj map[string]any, want map[string]any) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	meta, _ := out["metadata"].(map[string]any)
	wantMeta, _ := want["metadata"].(map[string]any)
	for _, field := range []string{"labels", "annotations"} {
		m, _ := meta[field].(map[string]any)
		delete(m, federation.ManagedLabel)
		delete(m, federation.ManagedByLabel)
		delete(m, federation.SourceAnnotation)
		if _, had := wantMeta[field]; m != nil && len(m) == 0 && !had {
			delete(meta, field)
		}
	}
	return out
}

// TestBuildAgreesWithRenderAndPlanner is the property test: on random
// federations and inputs, the explanation places every object where render
// places it, ends each member object as render's (before the markers),
// fails an override exactly where render fails it, and explains the plan
// that planner.Plan computes.
func TestBuildAgreesWithRenderAndPlanner(t *testing.T) {
	t.Parallel()
	g := &generator{r: rand.New(rand.NewPCG(11, 12))}
	runs := 1500
	if testing.Short() {
		runs = 300
	}
	var planned, failedOverrides int
	for run := range runs {
		members := g.members()
		text := g.input()
		set := decode(t, text)
		res := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
		rep, err := explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
		require.NoError(t, err)
		require.Len(t, rep.Objects, len(set.Objects))
		ctx := fmt.Sprintf("run %d, members %v\n%s", run, members, text)

		placed := map[string][]string{}
		for _, p := range res.Placed {
			placed[p.Object.Kind+"/"+p.Object.Name] = p.Clusters
		}
		targets := map[string]map[string]any{}
		for _, tg := range res.Targets {
			targets[tg.Source.Kind+"/"+tg.Source.Name+"@"+tg.Cluster] = tg.Object
		}
		failed := map[string]bool{}
		for _, e := range res.Errors {
			var te *render.TargetError
			require.ErrorAs(t, e, &te)
			if te.Cluster != "" {
				failed[te.Object.Kind+"/"+te.Object.Name+"@"+te.Cluster] = true
			}
		}
		for _, o := range rep.Objects {
			key := o.Kind + "/" + o.Name
			want := placed[key]
			if want == nil {
				want = []string{}
			}
			require.Equal(t, want, o.Placement.Clusters, "placement of %s\n%s", key, ctx)
			for _, c := range o.Overrides {
				k := key + "@" + c.Cluster
				if c.Error != nil {
					failedOverrides++
					require.True(t, failed[k], "explain fails %s where render does not\n%s", k, ctx)
					continue
				}
				require.False(t, failed[k], "render fails %s where explain does not\n%s", k, ctx)
				if o.Placement.SystemNamespace {
					continue
				}
				got := explain.MemberObject(c)
				require.Equal(t, unmarked(targets[k], got), got, "member object %s\n%s", k, ctx)
			}
			if s := o.Scheduling; s != nil && s.Error == "" && s.Skipped == "" {
				planned++
				spec := set.RSPs[0].Spec
				if len(spec.Clusters) == 0 {
					spec.Clusters = map[string]federation.ClusterPreferences{"*": {Weight: 1}}
				}
				want, err := planner.Plan(spec, s.Considered, s.Key, nil, nil)
				require.NoError(t, err)
				got := map[string]int64{}
				for _, r := range s.Plan {
					got[r.Cluster] = r.Replicas
				}
				require.Equal(t, want.Plan, got, "plan\n%s", ctx)
				require.Equal(t, slices.Sorted(maps.Keys(want.Plan)), o.Placement.Scheduled, "scheduled placement\n%s", ctx)
				var sum int64
				for _, v := range want.Plan {
					sum += v
				}
				require.Equal(t, int64(spec.TotalReplicas)-sum, s.Unplaced, "unplaced\n%s", ctx)
			}
		}
	}
	t.Logf("%d runs: %d plans, %d failing overrides", runs, planned, failedOverrides)
	assert.Greater(t, planned, runs/4, "the generator produces plans")
	assert.Greater(t, failedOverrides, 0, "the generator produces failing overrides")
}

func TestBuildFiltersByName(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: web, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec: {placement: {clusterSelector: {}}}
`)
	members := []placement.Cluster{{Name: "a"}}
	for _, tt := range []struct {
		names []string
		want  []string
	}{
		{nil, []string{"FederatedConfigMap web", "FederatedNamespace shop", "FederatedDeployment web"}},
		{[]string{"web"}, []string{"FederatedConfigMap web", "FederatedDeployment web"}},
		{[]string{"deployment/web"}, []string{"FederatedDeployment web"}},
		{[]string{"FederatedDeployment/web"}, []string{"FederatedDeployment web"}},
		{[]string{"federateddeployments/shop/web"}, []string{"FederatedDeployment web"}},
		{[]string{"shop/web"}, []string{"FederatedConfigMap web", "FederatedDeployment web"}},
		{[]string{"shop", "configmaps/web"}, []string{"FederatedConfigMap web", "FederatedNamespace shop"}},
	} {
		rep, err := explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: members, Names: tt.names})
		require.NoError(t, err)
		var got []string
		for _, o := range rep.Objects {
			got = append(got, o.Kind+" "+o.Name)
		}
		assert.Equal(t, tt.want, got, "names %q", tt.names)
	}
	_, err := explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: members, Names: []string{"web", "other/web"}})
	var nm *explain.NoMatchError
	require.ErrorAs(t, err, &nm)
	assert.Equal(t, "other/web", nm.Name)
}

func TestBuildHidesSecretData(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata: {name: creds}
spec:
  template: {metadata: {labels: {a: b}}, data: {password: aHVudGVyMg==}}
  placement: {clusters: [{name: a}]}
  overrides:
  - clusterName: a
    clusterOverrides:
    - {path: /data/password, value: czNjcmV0}
    - {op: remove, path: /data}
    - {path: /metadata/labels/a, value: c}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: default}
spec: {placement: {clusterSelector: {}}}
`)
	rep, err := explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: []placement.Cluster{{Name: "a"}}})
	require.NoError(t, err)
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "aHVudGVyMg")
	assert.NotContains(t, string(data), "czNjcmV0")
	require.Len(t, rep.Objects, 2)
	require.Equal(t, "FederatedSecret", rep.Objects[1].Kind)
	require.Len(t, rep.Objects[1].Overrides, 1)
	applied := rep.Objects[1].Overrides[0].Applied
	require.Len(t, applied, 3)
	assert.True(t, applied[0].Redacted)
	assert.True(t, applied[1].Redacted)
	assert.Equal(t, explain.Override{From: explain.FromOverrides, Field: "spec.overrides[0].clusterOverrides[2]", Op: "replace", Path: "/metadata/labels/a",
		Old: json.RawMessage(`"b"`), New: json.RawMessage(`"c"`)}, applied[2], "metadata is not Secret data")
}

// TestBuildSaysWhoseShareIsStranded: explain plans as render does when a
// migration sends a member's share to a cordoned member (planned over
// the others), and says which member was left out and why, in the
// report and its text; a plan with no member left says so too.
func TestBuildSaysWhoseShareIsStranded(t *testing.T) {
	t.Parallel()
	set := decode(t, `
apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`)
	sel, err := labels.Parse("app=web")
	require.NoError(t, err)
	members := []placement.Cluster{{Name: "a", Migrations: []placement.Migration{{Selector: sel, To: "b"}}}, {Name: "b", Cordoned: true}, {Name: "c"}}
	rep, err := explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.NoError(t, err)
	var s *explain.Scheduling
	for _, o := range rep.Objects {
		if o.Scheduling != nil {
			s = o.Scheduling
		}
	}
	require.NotNil(t, s)
	assert.Equal(t, "a (migrated to b, cordoned)", s.Stranded)
	assert.Equal(t, []string{"c"}, s.Considered)
	assert.Equal(t, []explain.Replicas{{Cluster: "c", Replicas: 6}}, s.Plan)
	var text bytes.Buffer
	plain, _, _, _ := iostreams.Test()
	require.NoError(t, explain.Text(&text, rep, plain.ColorScheme()))
	assert.Contains(t, text.String(), "left out: a (migrated to b, cordoned): their shares are planned over the others")

	members[2].Cordoned = true
	rep, err = explain.Build(explain.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.NoError(t, err)
	s = nil
	for _, o := range rep.Objects {
		if o.Scheduling != nil {
			s = o.Scheduling
		}
	}
	require.NotNil(t, s)
	// render's warning, word for word, and the members it considered
	assert.Equal(t, "no member to plan over (every member it considers is cordoned or did not answer, or migrates it to one that cannot take a share: a (migrated to b, cordoned)): FederatedDeployment shop/web is rendered from its own placement and template", s.Skipped)
	assert.Equal(t, []string{"a", "b", "c"}, s.Considered)
	text.Reset()
	require.NoError(t, explain.Text(&text, rep, plain.ColorScheme()))
	assert.Contains(t, text.String(), "clusters considered: a, b, c, none of them left to plan over\n")
	assert.NotContains(t, text.String(), "every member: (none)")
	out := render.ForClusters(render.Input{Set: set, Types: typeconfig.Builtin(), Members: members})
	require.Len(t, out.Warnings, 1)
	assert.Contains(t, out.Warnings[0].Error(), s.Skipped)
}

// TestBuildOverridesOfAnObjectPlacedNowhere: as render, wrong overrides
// fail an object that is placed, and not one placed nowhere (render
// warns), so explain does not count it as failing.
func TestBuildOverridesOfAnObjectPlacedNowhere(t *testing.T) {
	t.Parallel()
	text := func(clusters string) string {
		return `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: shop}
spec:
  placement: {clusters: ` + clusters + `}
  overrides:
  - clusterName: a
    clusterOverrides: [{path: /metadata/name, value: other}]
`
	}
	errorsOf := func(clusters string) []string {
		rep, err := explain.Build(explain.Input{Set: decode(t, text(clusters)), Types: typeconfig.Builtin(), Members: []placement.Cluster{{Name: "a"}}})
		require.NoError(t, err)
		for _, o := range rep.Objects {
			if o.Name == "cfg" {
				return o.Errors
			}
		}
		t.Fatal("cfg not explained")
		return nil
	}
	assert.Empty(t, errorsOf("[]"), "placed nowhere: render only warns")
	assert.NotEmpty(t, errorsOf("[{name: a}]"), "placed: the object fails")
}
