package placement

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/labels"
)

func migrating(t *testing.T, from, selector, to string) Cluster {
	t.Helper()
	sel, err := labels.Parse(selector)
	if err != nil {
		t.Fatal(err)
	}
	return Cluster{Name: from, Migrations: []Migration{{Selector: sel, To: to}}}
}

func TestMigrated(t *testing.T) {
	web := map[string]string{"app": "web"}
	tests := []struct {
		name     string
		clusters []string
		labels   map[string]string
		members  []Cluster
		want     []string
		moved    []Moved
	}{
		{name: "no migrations", clusters: []string{"a", "b"}, labels: web, members: []Cluster{{Name: "a"}, {Name: "b"}}, want: []string{"a", "b"}},
		{name: "selected object moves", clusters: []string{"a", "c"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), {Name: "b"}, {Name: "c"}},
			want:    []string{"b", "c"}, moved: []Moved{{From: "a", To: "b", Selector: "app=web"}}},
		{name: "destination already there", clusters: []string{"a", "b"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), {Name: "b"}},
			want:    []string{"b"}, moved: []Moved{{From: "a", To: "b", Selector: "app=web"}}},
		{name: "other labels stay", clusters: []string{"a"}, labels: map[string]string{"app": "db"},
			members: []Cluster{migrating(t, "a", "app=web", "b"), {Name: "b"}}, want: []string{"a"}},
		{name: "not placed in the source", clusters: []string{"c"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), {Name: "b"}, {Name: "c"}}, want: []string{"c"}},
		{name: "a chain ends at its end", clusters: []string{"a"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app", "c"), {Name: "c"}},
			want:    []string{"c"}, moved: []Moved{{From: "a", To: "b", Selector: "app=web"}, {From: "b", To: "c", Selector: "app"}}},
		{name: "a chain ends at its end whatever the members' order", clusters: []string{"a"}, labels: web,
			members: []Cluster{migrating(t, "b", "app", "c"), migrating(t, "a", "app=web", "b"), {Name: "c"}},
			want:    []string{"c"}, moved: []Moved{{From: "a", To: "b", Selector: "app=web"}, {From: "b", To: "c", Selector: "app"}}},
		{name: "a cycle ends before it comes back", clusters: []string{"a"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app", "a")},
			want:    []string{"b"}, moved: []Moved{{From: "a", To: "b", Selector: "app=web"}}},
		{name: "members of a cycle swap", clusters: []string{"b", "a"}, labels: web,
			members: []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app", "a")},
			want:    []string{"a", "b"}, moved: []Moved{{From: "b", To: "a", Selector: "app"}, {From: "a", To: "b", Selector: "app=web"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := append([]string(nil), tt.clusters...)
			got, moved := Migrated(tt.clusters, tt.labels, tt.members)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.moved, moved)
			assert.Equal(t, in, tt.clusters, "the input is not modified")
		})
	}
}

func TestMigratedPlan(t *testing.T) {
	members := []Cluster{migrating(t, "a", "app=web", "b"), {Name: "b"}, {Name: "c"}}
	plan := map[string]int64{"a": 2, "b": 1, "c": 3}
	got, moved := MigratedPlan(plan, map[string]string{"app": "web"}, members)
	assert.Equal(t, map[string]int64{"b": 3, "c": 3}, got, "the destination adds the source's replicas")
	assert.Equal(t, []Moved{{From: "a", To: "b", Selector: "app=web"}}, moved)
	assert.Equal(t, map[string]int64{"a": 2, "b": 1, "c": 3}, plan, "the input is not modified")

	got, moved = MigratedPlan(plan, map[string]string{"app": "db"}, members)
	assert.Equal(t, plan, got)
	assert.Nil(t, moved)

	// A chain, its members in either order.
	chain := []Cluster{migrating(t, "b", "app=web", "c"), migrating(t, "a", "app=web", "b"), {Name: "c"}}
	got, _ = MigratedPlan(map[string]int64{"a": 2, "b": 1, "c": 3}, map[string]string{"app": "web"}, chain)
	assert.Equal(t, map[string]int64{"c": 6}, got)

	// Two members that swap swap their shares.
	cycle := []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app", "a")}
	got, _ = MigratedPlan(map[string]int64{"a": 2, "b": 5}, map[string]string{"app": "web"}, cycle)
	assert.Equal(t, map[string]int64{"a": 5, "b": 2}, got)

	// The replicas total is kept whatever the migrations.
	got, _ = MigratedPlan(map[string]int64{"a": 5}, map[string]string{"app": "web"}, members)
	assert.Equal(t, map[string]int64{"b": 5}, got)
}

func TestNamespaceDestinations(t *testing.T) {
	members := []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app=web", "c"), {Name: "c"}, {Name: "d"}}
	web, db := map[string]string{"app": "web"}, map[string]string{"app": "db"}
	assert.Equal(t, []string{"b", "c"}, NamespaceDestinations([]string{"a"}, []map[string]string{db, web}, members), "a chain goes on")
	assert.Empty(t, NamespaceDestinations([]string{"a"}, []map[string]string{db}, members), "nothing selected")
	assert.Empty(t, NamespaceDestinations([]string{"d"}, []map[string]string{web}, members), "not placed in a source")
	assert.Equal(t, []string{"a", "b", "c"}, Union([]string{"c", "a"}, []string{"b", "a"}))
}

func TestStranded(t *testing.T) {
	members := []Cluster{migrating(t, "a", "app=web", "b"), migrating(t, "b", "app=web", "c"), {Name: "c"}, migrating(t, "d", "app=web", "gone")}
	web := map[string]string{"app": "web"}
	assert.Nil(t, Stranded([]string{"a", "b", "c"}, web, members, []string{"a", "b", "c"}), "the chain ends in c, which can take it")
	assert.Equal(t, map[string]string{"a": "c", "b": "c"}, Stranded([]string{"a", "b", "c"}, web, members, []string{"a", "b"}), "the chain's end decides, not the first hop")
	assert.Nil(t, Stranded([]string{"a", "b"}, map[string]string{"app": "db"}, members, nil), "nothing migrates")
	assert.Equal(t, map[string]string{"d": "gone"}, Stranded([]string{"c", "d"}, web, members, []string{"c", "d"}), "a destination that is no member")
}

// TestMigratedWithoutMigrationsAllocatesNothing: the usual federation has
// no migrations, and render asks for every object: nothing to follow,
// nothing allocated.
func TestMigratedWithoutMigrationsAllocatesNothing(t *testing.T) {
	members := []Cluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	clusters := []string{"a", "b", "c"}
	plan := map[string]int64{"a": 1, "b": 2}
	allocs := testing.AllocsPerRun(100, func() {
		Migrated(clusters, nil, members)
		MigratedPlan(plan, nil, members)
		Stranded(clusters, nil, members, nil)
	})
	assert.Zero(t, allocs)
}
