package planner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// prefs is shorthand for spec.clusters.
type prefs = map[string]federation.ClusterPreferences

// counts is a per-cluster number: a plan, current replicas, capacities.
type counts = map[string]int64

func ptr(v int64) *int64 { return &v }

// kubefedCases are the 40 cases of KubeFed's planner unit tests,
// pkg/controller/util/planner/planner_test.go (kubernetes-sigs/kubefed,
// archived as kubernetes-retired/kubefed), transcribed as data: inputs and
// expected outputs only. Every one plans with the empty key, as KubeFed's
// tests do. Rows of TestEqual, TestMin, TestMax and TestWeight pass empty
// current and capacity maps and expect no overflow; rows of
// TestEqualWithExisting pass only current replicas (rebalance off). The
// "hash dependent" rows are the ones whose result follows from the FNV-1
// order E < D < C < B < A of one-letter names with the empty key.
var kubefedCases = []struct {
	name         string
	prefs        prefs
	total        int32
	rebalance    bool
	clusters     []string
	current      counts
	capacity     counts
	want         counts
	wantOverflow counts // nil: none
}{
	// TestEqual
	{name: "TestEqual#1 splits 50 over three equal clusters 16/17/17, the later letters first",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 16, "B": 17, "C": 17}},
	{name: "TestEqual#2 splits 50 over two equal clusters 25/25",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B"},
		want: counts{"A": 25, "B": 25}},
	{name: "TestEqual#3 gives a single replica to B, the lower hash",
		prefs: prefs{"*": {Weight: 1}}, total: 1, clusters: []string{"A", "B"},
		want: counts{"A": 0, "B": 1}},
	{name: "TestEqual#4 gives a single replica of four clusters to D, the lowest hash",
		prefs: prefs{"*": {Weight: 1}}, total: 1, clusters: []string{"A", "B", "C", "D"},
		want: counts{"A": 0, "B": 0, "C": 0, "D": 1}},
	{name: "TestEqual#5 gives the only cluster the only replica",
		prefs: prefs{"*": {Weight: 1}}, total: 1, clusters: []string{"A"},
		want: counts{"A": 1}},
	{name: "TestEqual#6 plans nothing without clusters",
		prefs: prefs{"*": {Weight: 1}}, total: 1, clusters: []string{},
		want: counts{}},

	// TestEqualWithExisting
	{name: "TestEqualWithExisting#1 keeps 30 running in C and splits the rest",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B", "C"},
		current: counts{"C": 30},
		want:    counts{"A": 10, "B": 10, "C": 30}},
	{name: "TestEqualWithExisting#2 keeps 30 running in A and gives B the rest",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B"},
		current: counts{"A": 30},
		want:    counts{"A": 30, "B": 20}},
	{name: "TestEqualWithExisting#3 with A 0 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 0, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#4 with A 1 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 1, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#5 with A 4 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 4, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#6 with A 5 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 5, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#7 with A 6 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 6, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#8 with A 7 and B 8 running plans 7/8",
		prefs: prefs{"*": {Weight: 1}}, total: 15, clusters: []string{"A", "B"},
		current: counts{"A": 7, "B": 8},
		want:    counts{"A": 7, "B": 8}},
	{name: "TestEqualWithExisting#9 keeps 300000 running in A of 500000",
		prefs: prefs{"*": {Weight: 1}}, total: 500000, clusters: []string{"A", "B"},
		current: counts{"A": 300000},
		want:    counts{"A": 300000, "B": 200000}},
	{name: "TestEqualWithExisting#10 with 10 running in A still plans 25/25",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B"},
		current: counts{"A": 10},
		want:    counts{"A": 25, "B": 25}},
	{name: "TestEqualWithExisting#11 scales 10+70 down to 50 by keeping B's, ignoring the weights (kubernetes/kubernetes#31816)",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B"},
		current: counts{"A": 10, "B": 70},
		want:    counts{"A": 0, "B": 50}},
	{name: "TestEqualWithExisting#12 scales 30 running in A down to 1",
		prefs: prefs{"*": {Weight: 1}}, total: 1, clusters: []string{"A", "B"},
		current: counts{"A": 30},
		want:    counts{"A": 1, "B": 0}},
	{name: "TestEqualWithExisting#13 with 10 and 20 running plans 25/25",
		prefs: prefs{"*": {Weight: 1}}, total: 50, clusters: []string{"A", "B"},
		current: counts{"A": 10, "B": 20},
		want:    counts{"A": 25, "B": 25}},

	// TestWithExistingAndCapacity
	{name: "TestWithExistingAndCapacity#1 caps C at its capacity 10 and reports 7 overflow",
		prefs: prefs{"*": {Weight: 1}}, total: 50, rebalance: true, clusters: []string{"A", "B", "C"},
		current: counts{}, capacity: counts{"C": 10},
		want: counts{"A": 20, "B": 20, "C": 10}, wantOverflow: counts{"C": 7}},
	{name: "TestWithExistingAndCapacity#2 caps B at 10 and reports 40 overflow; C has no preference",
		prefs: prefs{"A": {Weight: 10000}, "B": {Weight: 1}}, total: 50, rebalance: true, clusters: []string{"B", "C"},
		current: counts{}, capacity: counts{"B": 10},
		want: counts{"B": 10, "C": 0}, wantOverflow: counts{"B": 40}},
	{name: "TestWithExistingAndCapacity#3 moves B's excess over its capacity to A",
		prefs: prefs{"A": {Weight: 1}, "B": {Weight: 2}}, total: 60, rebalance: true, clusters: []string{"A", "B", "C"},
		current: counts{}, capacity: counts{"B": 10},
		want: counts{"A": 50, "B": 10, "C": 0}, wantOverflow: counts{"B": 30}},
	{name: "TestWithExistingAndCapacity#4 gives B what A's max and C's capacity refuse",
		prefs: prefs{
			"A": {Weight: 10000, MaxReplicas: ptr(10)},
			"B": {Weight: 1},
			"C": {Weight: 1, MaxReplicas: ptr(21)},
			"D": {Weight: 1, MaxReplicas: ptr(10)},
		}, total: 71, rebalance: true, clusters: []string{"A", "B", "C", "D"},
		current: counts{}, capacity: counts{"C": 10},
		want: counts{"A": 10, "B": 41, "C": 10, "D": 10}, wantOverflow: counts{"C": 11}},
	{name: "TestWithExistingAndCapacity#5 without rebalance leaves 40 unplaced and keeps the overflow",
		prefs: prefs{"A": {Weight: 1}, "B": {Weight: 1}}, total: 60, clusters: []string{"A", "B", "C"},
		current: counts{}, capacity: counts{"A": 10, "B": 10},
		want: counts{"A": 10, "B": 10, "C": 0}, wantOverflow: counts{"A": 20, "B": 20}},
	{name: "TestWithExistingAndCapacity#6 without rebalance trims the overflow to the unplaced replicas, none",
		prefs: prefs{"A": {Weight: 1}, "B": {Weight: 5}}, total: 60, clusters: []string{"A", "B", "C"},
		current: counts{}, capacity: counts{"B": 10},
		want: counts{"A": 50, "B": 10, "C": 0}},
	{name: "TestWithExistingAndCapacity#7 caps B's minimum at its capacity",
		prefs: prefs{"*": {MinReplicas: 20, Weight: 0}}, total: 50, clusters: []string{"A", "B", "C"},
		current: counts{}, capacity: counts{"B": 10},
		want: counts{"A": 20, "B": 10, "C": 20}},
	{name: "TestWithExistingAndCapacity#8 caps B's minimum at its capacity and reports the later overflow",
		prefs: prefs{"*": {MinReplicas: 20, Weight: 1}}, total: 60, rebalance: true, clusters: []string{"A", "B"},
		current: counts{}, capacity: counts{"B": 10},
		want: counts{"A": 50, "B": 10}, wantOverflow: counts{"B": 15}},

	// TestMin
	{name: "TestMin#1 gives weight-0 clusters only their minimum",
		prefs: prefs{"*": {MinReplicas: 2, Weight: 0}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 2, "B": 2, "C": 2}},
	{name: "TestMin#2 runs out of replicas for A's minimum, the highest hash",
		prefs: prefs{"*": {MinReplicas: 20, Weight: 0}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 10, "B": 20, "C": 20}},
	{name: "TestMin#3 gives A, the only weighted cluster, everything as its minimum",
		prefs: prefs{"*": {MinReplicas: 20, Weight: 0}, "A": {MinReplicas: 100, Weight: 1}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 50, "B": 0, "C": 0}},
	{name: "TestMin#4 stops every cluster at its max above the minimum",
		prefs: prefs{"*": {MinReplicas: 10, Weight: 1, MaxReplicas: ptr(12)}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 12, "B": 12, "C": 12}},

	// TestMax
	{name: "TestMax#1 stops every cluster at its max and leaves the rest unplaced",
		prefs: prefs{"*": {Weight: 1, MaxReplicas: ptr(2)}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 2, "B": 2, "C": 2}},
	{name: "TestMax#2 places nothing when every weight is 0",
		prefs: prefs{"*": {Weight: 0, MaxReplicas: ptr(2)}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 0, "B": 0, "C": 0}},

	// TestWeight
	{name: "TestWeight#1 splits 60 in proportion 1:2 and gives C without a preference 0",
		prefs: prefs{"A": {Weight: 1}, "B": {Weight: 2}}, total: 60, clusters: []string{"A", "B", "C"},
		want: counts{"A": 20, "B": 40, "C": 0}},
	{name: "TestWeight#2 gives the heavy weight everything after rounding up",
		prefs: prefs{"A": {Weight: 10000}, "B": {Weight: 1}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 50, "B": 0, "C": 0}},
	{name: "TestWeight#3 ignores the preference of a cluster that is not available",
		prefs: prefs{"A": {Weight: 10000}, "B": {Weight: 1}}, total: 50, clusters: []string{"B", "C"},
		want: counts{"B": 50, "C": 0}},
	{name: "TestWeight#4 splits what A's max refuses evenly",
		prefs: prefs{"A": {Weight: 10000, MaxReplicas: ptr(10)}, "B": {Weight: 1}, "C": {Weight: 1}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 10, "B": 20, "C": 20}},
	{name: "TestWeight#5 gives B what the maxima of A and C refuse",
		prefs: prefs{"A": {Weight: 10000, MaxReplicas: ptr(10)}, "B": {Weight: 1}, "C": {Weight: 1, MaxReplicas: ptr(10)}}, total: 50, clusters: []string{"A", "B", "C"},
		want: counts{"A": 10, "B": 30, "C": 10}},
	{name: "TestWeight#6 fills C to its max 21 over several passes",
		prefs: prefs{
			"A": {Weight: 10000, MaxReplicas: ptr(10)},
			"B": {Weight: 1},
			"C": {Weight: 1, MaxReplicas: ptr(21)},
			"D": {Weight: 1, MaxReplicas: ptr(10)},
		}, total: 71, clusters: []string{"A", "B", "C", "D"},
		want: counts{"A": 10, "B": 30, "C": 21, "D": 10}},
	{name: "TestWeight#7 splits the rest evenly between the unbounded B and E",
		prefs: prefs{
			"A": {Weight: 10000, MaxReplicas: ptr(10)},
			"B": {Weight: 1},
			"C": {Weight: 1, MaxReplicas: ptr(21)},
			"D": {Weight: 1, MaxReplicas: ptr(10)},
			"E": {Weight: 1},
		}, total: 91, clusters: []string{"A", "B", "C", "D", "E"},
		want: counts{"A": 10, "B": 25, "C": 21, "D": 10, "E": 25}},
}

func TestPlanKubeFedCases(t *testing.T) {
	t.Parallel()
	require.Len(t, kubefedCases, 40, "KubeFed's planner_test.go has 40 cases")
	for _, tt := range kubefedCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := federation.RSPSpec{TotalReplicas: tt.total, Rebalance: tt.rebalance, Clusters: tt.prefs}
			got, err := planner.Plan(spec, tt.clusters, "", tt.current, tt.capacity)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Plan)
			assert.Equal(t, tt.wantOverflow, got.Overflow)
		})
	}
}
