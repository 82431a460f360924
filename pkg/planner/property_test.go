package planner_test

import (
	"fmt"
	"hash/fnv"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// input is everything Plan takes.
type input struct {
	spec     federation.RSPSpec
	clusters []string
	key      string
	current  counts
	capacity counts
}

func (in input) String() string {
	var ps []string
	for _, k := range slices.Sorted(maps.Keys(in.spec.Clusters)) {
		p := in.spec.Clusters[k]
		maxs := "nil"
		if p.MaxReplicas != nil {
			maxs = fmt.Sprint(*p.MaxReplicas)
		}
		ps = append(ps, fmt.Sprintf("%q:{min %d max %s w %d}", k, p.MinReplicas, maxs, p.Weight))
	}
	return fmt.Sprintf("total %d rebalance %v prefs %v clusters %q key %q current %v capacity %v",
		in.spec.TotalReplicas, in.spec.Rebalance, ps, in.clusters, in.key, in.current, in.capacity)
}

// pref is the preference a cluster plans with, if any (rule 1).
func (in input) pref(cluster string) (federation.ClusterPreferences, bool) {
	if p, ok := in.spec.Clusters[cluster]; ok {
		return p, true
	}
	p, ok := in.spec.Clusters["*"]
	return p, ok
}

// clusterPool holds one-letter names, realistic names and the FNV-1
// collision pair member-412789 / member-649192.
var clusterPool = []string{"A", "B", "C", "D", "E", "F", "eu-1", "us-east", "ap-northeast", "member-412789", "member-649192"}

func randomInput(r *rand.Rand) input {
	pool := slices.Clone(clusterPool)
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	in := input{
		spec: federation.RSPSpec{
			TotalReplicas: int32(r.IntN(120)),
			Rebalance:     r.IntN(2) == 0,
			Clusters:      prefs{},
		},
		clusters: pool[:r.IntN(8)],
		key:      []string{"", "test-ns/test-deployment", "ns/x"}[r.IntN(3)],
	}
	randomPref := func() federation.ClusterPreferences {
		var p federation.ClusterPreferences
		if r.IntN(3) == 0 {
			p.MinReplicas = int64(r.IntN(25))
		}
		if r.IntN(5) < 2 {
			p.MaxReplicas = ptr(int64(r.IntN(30)))
		}
		switch r.IntN(6) {
		case 0: // weight 0
		case 1:
			p.Weight = int64(r.IntN(1_000_000))
		default:
			p.Weight = int64(1 + r.IntN(5))
		}
		return p
	}
	for _, name := range clusterPool {
		if r.IntN(10) < 3 {
			in.spec.Clusters[name] = randomPref()
		}
	}
	if r.IntN(10) < 6 {
		in.spec.Clusters["*"] = randomPref()
	}
	if r.IntN(2) == 0 {
		in.current = counts{}
		for _, c := range pool {
			if r.IntN(10) < 4 {
				in.current[c] = int64(r.IntN(60))
			}
		}
	}
	if r.IntN(2) == 0 {
		in.capacity = counts{}
		for _, c := range pool {
			if r.IntN(10) < 2 {
				in.capacity[c] = int64(r.IntN(30))
			}
		}
	}
	return in
}

func randomInputs(n int) []input {
	r := rand.New(rand.NewPCG(20240601, 7))
	ins := make([]input, n)
	for i := range ins {
		ins[i] = randomInput(r)
	}
	return ins
}

func sum(m counts) int64 {
	var s int64
	for _, v := range m {
		s += v
	}
	return s
}

// checkInvariants asserts what holds for every plan, whatever the input.
func checkInvariants(t *testing.T, in input, res planner.Result) {
	t.Helper()
	total := int64(in.spec.TotalReplicas)
	assert.ElementsMatch(t, in.clusters, slices.Collect(maps.Keys(res.Plan)), "the plan has exactly the listed clusters: %v", in)
	assert.LessOrEqual(t, sum(res.Plan), total, "the plan never exceeds totalReplicas: %v", in)
	for c, v := range res.Plan {
		floor := int64(0)
		if capa, ok := in.capacity[c]; ok && capa < 0 {
			floor = capa // as KubeFed's minimum step plans it
		}
		assert.GreaterOrEqual(t, v, floor, "no cluster is planned below 0, or below a negative capacity: %s in %v", c, in)
		p, ok := in.pref(c)
		if !ok {
			assert.Zero(t, v, "a cluster without a preference is planned 0: %s in %v", c, in)
			continue
		}
		if capa, ok := in.capacity[c]; ok {
			assert.LessOrEqual(t, v, capa, "no cluster is planned above its capacity: %s in %v", c, in)
		}
		if p.MaxReplicas != nil && p.MinReplicas <= *p.MaxReplicas {
			assert.LessOrEqual(t, v, *p.MaxReplicas, "no cluster is planned above a max at least its min: %s in %v", c, in)
		}
	}
	for c, v := range res.Overflow {
		_, hasCap := in.capacity[c]
		_, hasPref := in.pref(c)
		assert.True(t, hasCap && hasPref && slices.Contains(in.clusters, c), "overflow only for listed clusters with a preference and a capacity: %s in %v", c, in)
		assert.Positive(t, v, "overflow entries are positive: %s in %v", c, in)
		if !in.spec.Rebalance {
			assert.LessOrEqual(t, v, total-sum(res.Plan), "without rebalance overflow is at most the unplaced replicas: %s in %v", c, in)
		}
	}
}

func TestPlanProperties(t *testing.T) {
	t.Parallel()
	inputs := randomInputs(5000)
	run := func(t *testing.T, in input) planner.Result {
		t.Helper()
		res, err := planner.Plan(in.spec, in.clusters, in.key, in.current, in.capacity)
		require.NoError(t, err, "%v", in)
		return res
	}

	t.Run("every plan keeps the invariants: listed clusters only, 0..capacity, at most max, sum at most total, overflow bounded", func(t *testing.T) {
		t.Parallel()
		for _, in := range inputs {
			checkInvariants(t, in, run(t, in))
		}
	})

	t.Run("every plan matches a direct transcription of KubeFed's rules", func(t *testing.T) {
		t.Parallel()
		for _, in := range inputs {
			res := run(t, in)
			wantPlan, wantOverflow := referencePlan(in)
			require.Equal(t, wantPlan, res.Plan, "%v", in)
			require.Equal(t, wantOverflow, res.Overflow, "%v", in)
		}
	})

	t.Run("permuting the cluster list gives the same result", func(t *testing.T) {
		t.Parallel()
		r := rand.New(rand.NewPCG(3, 4))
		for _, in := range inputs {
			want := run(t, in)
			perm := slices.Clone(in.clusters)
			r.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			got, err := planner.Plan(in.spec, perm, in.key, in.current, in.capacity)
			require.NoError(t, err)
			require.Equal(t, want, got, "%v permuted to %q", in, perm)
			slices.Reverse(perm)
			got, err = planner.Plan(in.spec, perm, in.key, in.current, in.capacity)
			require.NoError(t, err)
			require.Equal(t, want, got, "%v permuted to %q", in, perm)
		}
	})

	t.Run("inputs are not modified", func(t *testing.T) {
		t.Parallel()
		for _, in := range inputs {
			before := deepCopy(in)
			run(t, in)
			_, _ = planner.Schedule(in.spec, in.clusters, in.key, in.current, in.capacity)
			require.Equal(t, before, in)
		}
	})

	// Minimums are met when they all fit: if every cluster with a
	// preference has min ≤ max and the minimums, each capped by the
	// cluster's capacity, add up to at most totalReplicas, each cluster
	// gets at least its capped minimum. Later steps only add, and a max or
	// capacity cut never goes below what they already allowed.
	t.Run("when the capped minimums fit in the total and none is above its max, every cluster gets its minimum", func(t *testing.T) {
		t.Parallel()
		checked := 0
		for _, in := range inputs {
			need, ok := int64(0), true
			floor := counts{}
			for _, c := range in.clusters {
				p, has := in.pref(c)
				if !has {
					continue
				}
				if p.MaxReplicas != nil && p.MinReplicas > *p.MaxReplicas {
					ok = false
				}
				m := p.MinReplicas
				if capa, has := in.capacity[c]; has {
					m = min(m, capa)
				}
				floor[c] = m
				need += m
			}
			if !ok || need > int64(in.spec.TotalReplicas) {
				continue
			}
			checked++
			res := run(t, in)
			for c, m := range floor {
				assert.GreaterOrEqual(t, res.Plan[c], m, "%s in %v", c, in)
			}
		}
		assert.Greater(t, checked, 1000, "enough inputs meet the condition")
	})

	// Conservation: with no capacity known for the planned clusters and at
	// least one planned cluster of weight > 0 without a max, every replica
	// is placed, with or without rebalance and running replicas. Each pass
	// then offers that cluster at least one replica or sees another grow,
	// so the passes only stop when nothing is left.
	t.Run("without capacities and with an unbounded weighted cluster every replica is placed", func(t *testing.T) {
		t.Parallel()
		checked := 0
		for _, in := range inputs {
			unbounded, capped := false, false
			for _, c := range in.clusters {
				p, has := in.pref(c)
				if !has {
					continue
				}
				if _, has := in.capacity[c]; has {
					capped = true
				}
				if p.Weight > 0 && p.MaxReplicas == nil {
					unbounded = true
				}
			}
			if capped || !unbounded {
				continue
			}
			checked++
			res := run(t, in)
			assert.Equal(t, int64(in.spec.TotalReplicas), sum(res.Plan), "%v", in)
			assert.Nil(t, res.Overflow, "%v", in)
		}
		assert.Greater(t, checked, 1000, "enough inputs meet the condition")
	})

	t.Run("with rebalance weight-0 clusters get at most their minimum", func(t *testing.T) {
		t.Parallel()
		for _, in := range inputs {
			if !in.spec.Rebalance {
				continue
			}
			res := run(t, in)
			for _, c := range in.clusters {
				if p, has := in.pref(c); has && p.Weight == 0 {
					assert.LessOrEqual(t, res.Plan[c], p.MinReplicas, "%s in %v", c, in)
				}
			}
		}
	})

	t.Run("Schedule writes plan plus overflow, with the default preference when there is none", func(t *testing.T) {
		t.Parallel()
		for _, in := range inputs {
			got, err := planner.Schedule(in.spec, in.clusters, in.key, in.current, in.capacity)
			require.NoError(t, err)
			spec := in.spec
			if len(spec.Clusters) == 0 {
				spec.Clusters = prefs{"*": {Weight: 1}}
			}
			res, err := planner.Plan(spec, in.clusters, in.key, in.current, in.capacity)
			require.NoError(t, err)
			want := counts{}
			for c := range in.current {
				want[c] = 0
			}
			for c, v := range res.Plan {
				want[c] = v
			}
			for c, v := range res.Overflow {
				want[c] += v
			}
			require.Equal(t, want, got, "%v", in)
		}
	})
}

func deepCopy(in input) input {
	out := in
	out.clusters = slices.Clone(in.clusters)
	out.current = maps.Clone(in.current)
	out.capacity = maps.Clone(in.capacity)
	if in.spec.Clusters != nil {
		out.spec.Clusters = prefs{}
		for k, p := range in.spec.Clusters {
			if p.MaxReplicas != nil {
				p.MaxReplicas = ptr(*p.MaxReplicas)
			}
			out.spec.Clusters[k] = p
		}
	}
	return out
}

// referencePlan is a deliberately plain transcription of KubeFed's
// Planner.Plan (pkg/controller/util/planner/planner.go: maps, hash/fnv, a
// sort per plan), kept apart from Plan's allocation-free implementation so
// the two can be compared on many inputs. Its only departure from KubeFed is the one Plan documents: equal
// weight and hash fall back to the name. Inputs must not overflow int64.
func referencePlan(in input) (plan, overflow counts) {
	type named struct {
		name string
		hash uint32
		pref federation.ClusterPreferences
	}
	plan, overflow = counts{}, counts{}
	var ps []named
	for _, c := range in.clusters {
		p, ok := in.pref(c)
		if !ok {
			plan[c] = 0
			continue
		}
		h := fnv.New32()
		h.Write([]byte(c))
		h.Write([]byte(in.key))
		ps = append(ps, named{c, h.Sum32(), p})
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.pref.Weight != b.pref.Weight {
			return a.pref.Weight > b.pref.Weight
		}
		if a.hash != b.hash {
			return a.hash < b.hash
		}
		return a.name < b.name
	})

	left := int64(in.spec.TotalReplicas)
	for _, p := range ps {
		give := min(p.pref.MinReplicas, left)
		if capa, ok := in.capacity[p.name]; ok && capa < give {
			give = capa
		}
		left -= give
		plan[p.name] = give
	}

	kept := counts{}
	if !in.spec.Rebalance {
		for _, p := range ps {
			running, ok := in.current[p.name]
			if !ok || running <= plan[p.name] {
				continue
			}
			want := running
			if p.pref.MaxReplicas != nil && *p.pref.MaxReplicas < want {
				want = *p.pref.MaxReplicas
			}
			if capa, ok := in.capacity[p.name]; ok && capa < want {
				want = capa
			}
			add := min(want-plan[p.name], left)
			if add < 0 {
				add = 0
			}
			left -= add
			kept[p.name] = add
			plan[p.name] += add
		}
	}

	changed := true
	for changed && left > 0 {
		changed = false
		var weights int64
		for _, p := range ps {
			weights += p.pref.Weight
		}
		if weights == 0 {
			break
		}
		d := left
		var next []named
		for _, p := range ps {
			before := plan[p.name]
			offer := min((d*p.pref.Weight+weights-1)/weights, left)
			fromKept := min(offer, kept[p.name])
			kept[p.name] -= fromKept
			if fromKept > 0 {
				changed = true
			}
			after := before + offer - fromKept
			full := false
			if p.pref.MaxReplicas != nil && after > *p.pref.MaxReplicas {
				after, full = *p.pref.MaxReplicas, true
			}
			if capa, ok := in.capacity[p.name]; ok && after > capa {
				overflow[p.name] = after - capa
				after, full = capa, true
			}
			if !full {
				next = append(next, p)
			}
			left -= after - before
			plan[p.name] = after
			if after > before {
				changed = true
			}
		}
		ps = next
	}

	if !in.spec.Rebalance {
		for c, v := range overflow {
			if v = min(v, left); v > 0 {
				overflow[c] = v
			} else {
				delete(overflow, c)
			}
		}
	}
	if len(overflow) == 0 {
		overflow = nil
	}
	return plan, overflow
}
