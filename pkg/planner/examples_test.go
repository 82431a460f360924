package planner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// docsKey is the key of the RSP test-ns/test-deployment that KubeFed's user
// guide and several seeds use; FNV-1 of name+key orders the one-letter
// clusters B (0x3f654b26) < A (0x4f4678bf) < C (0xf0b75bb5), see
// TestFNV1.
const docsKey = "test-ns/test-deployment"

// TestPlanWorkedExamples pins the worked examples of KubeFed's user guide
// (KubeFed's docs/userguide.md, section ReplicaSchedulingPreference, clusters A, B and C) and
// of the design documents fedctl started from (Federation v1's and KubeFed's proposals), with the
// key KubeFed's controller would use. The expected values are derived by
// hand from the rules in Plan's doc comment; the derivation is spelled out
// where it is not obvious.
func TestPlanWorkedExamples(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		spec     federation.RSPSpec
		clusters []string
		key      string
		want     counts
	}{
		{
			name:     "user guide: weight 1 everywhere splits 9 as 3/3/3",
			spec:     federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 3, "B": 3, "C": 3},
		},
		{
			// B first (weight 2): ceil(9·2/3) = 6, then A: ceil(9·1/3) = 3.
			name:     "user guide: weights 1:2 split 9 as 3 and 6 and C without a preference gets 0",
			spec:     federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{"A": {Weight: 1}, "B": {Weight: 2}}},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 3, "B": 6, "C": 0},
		},
		{
			// Minimums: B 4, A 4, 1 left. Pass 1 (sum 3, d 1): B gets
			// ceil(1·2/3) = 1, A's ceil(1·1/3) = 1 finds nothing left.
			name: "user guide and seed 003_d8e70a8281bc02e8: A{min 4, max 6, weight 1} and B{min 4, max 8, weight 2} split 9 as 4 and 5",
			spec: federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{
				"A": {MinReplicas: 4, MaxReplicas: ptr(6), Weight: 1},
				"B": {MinReplicas: 4, MaxReplicas: ptr(8), Weight: 2},
			}},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 4, "B": 5, "C": 0},
		},
		{
			name: "seed 003_d8e70a8281bc02e8: the same preference over only A and B splits 9 as 4 and 5",
			spec: federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{
				"A": {MinReplicas: 4, MaxReplicas: ptr(6), Weight: 1},
				"B": {MinReplicas: 4, MaxReplicas: ptr(8), Weight: 2},
			}},
			clusters: []string{"A", "B"}, key: docsKey,
			want: counts{"A": 4, "B": 5},
		},
		{
			// Order C, B, A: 17, 17, then the 16 left for A.
			name: "user guide: C max 20 of 50 gives the layout A=16 B=17 C=17 with the empty key",
			spec: federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{
				"*": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(20)},
			}},
			clusters: []string{"A", "B", "C"}, key: "",
			want: counts{"A": 16, "B": 17, "C": 17},
		},
		{
			// Order B, A, C: 17, 17, then the 16 left for C.
			name: "user guide: C max 20 of 50 gives A=17 B=17 C=16 with the controller's key test-ns/test-deployment",
			spec: federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{
				"*": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(20)},
			}},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 17, "B": 17, "C": 16},
		},
		{
			// Pass 1 (sum 2, d 50): 25 each, C capped at 20 and full,
			// 5 left; pass 2: A alone takes them.
			name: "user guide: with B offline C max 20 of 50 gives A=30 C=20",
			spec: federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{
				"*": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(20)},
			}},
			clusters: []string{"A", "C"}, key: docsKey,
			want: counts{"A": 30, "C": 20},
		},
		{
			name: "user guide: with A and B offline C max 20 of 50 gives C=20 and leaves 30 unplaced",
			spec: federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{
				"*": {Weight: 1},
				"C": {Weight: 1, MaxReplicas: ptr(20)},
			}},
			clusters: []string{"C"}, key: docsKey,
			want: counts{"C": 20},
		},
		{
			// Minimums: ap-northeast 1, 14 left. Pass 1 (sum 5, d 14): each
			// us-* cluster (weight 2) gets ceil(28/5) = 6, 2 left;
			// ap-northeast is offered ceil(14/5) = 3 but only 2 are left:
			// 1+2 = 3, its max, which is not above it.
			name: "seed 000_84b1be47cfd3b6c0: 15 with *{weight 2, max 12} and ap-northeast{min 1, max 3, weight 1} gives 3/6/6",
			spec: federation.RSPSpec{TotalReplicas: 15, Clusters: prefs{
				"*":            {Weight: 2, MaxReplicas: ptr(12)},
				"ap-northeast": {MinReplicas: 1, MaxReplicas: ptr(3), Weight: 1},
			}},
			clusters: []string{"ap-northeast", "us-east", "us-west"}, key: docsKey,
			want: counts{"ap-northeast": 3, "us-east": 6, "us-west": 6},
		},
		{
			// The seed's cluster-1 has "weight:" with no value, i.e. 0.
			// Minimums: cluster-1 3, 17 left. Pass 1 (sum 1, d 17):
			// cluster-2 is offered 17, capped at 15 and full; cluster-1's
			// share is 0. Pass 2: the weights of the clusters not full sum
			// to 0, so the 2 left fit nowhere, as the seed warns ("the
			// actual total may differ from the configured total").
			name: "seed 001_887bb24b6709b734: 20 with *{weight 1, max 15} and cluster-1{min 3, max 10, weight empty} gives 3 and 15",
			spec: federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{
				"*":         {Weight: 1, MaxReplicas: ptr(15)},
				"cluster-1": {MinReplicas: 3, MaxReplicas: ptr(10)},
			}},
			clusters: []string{"cluster-1", "cluster-2"}, key: "fed-ns/fed-deploy",
			want: counts{"cluster-1": 3, "cluster-2": 15},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planner.Plan(tt.spec, tt.clusters, tt.key, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Plan)
			assert.Nil(t, got.Overflow)
		})
	}
}

// TestPlanRules pins rules of Plan's doc comment that KubeFed's own tests
// do not reach, each derived by hand.
func TestPlanRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		spec         federation.RSPSpec
		clusters     []string
		key          string
		current      counts
		capacity     counts
		want         counts
		wantOverflow counts
	}{
		{
			name:     "an empty spec.clusters plans 0 everywhere (the default is Schedule's job)",
			spec:     federation.RSPSpec{TotalReplicas: 9},
			clusters: []string{"A", "B", "C"},
			want:     counts{"A": 0, "B": 0, "C": 0},
		},
		{
			name:     "a cluster's own key wins over the wildcard",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"*": {Weight: 1}, "A": {Weight: 0, MinReplicas: 2}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 2, "B": 8},
		},
		{
			name:     "the wildcard is a template per cluster, not a shared budget",
			spec:     federation.RSPSpec{TotalReplicas: 30, Clusters: prefs{"*": {Weight: 1, MaxReplicas: ptr(5)}}},
			clusters: []string{"A", "B", "C"},
			want:     counts{"A": 5, "B": 5, "C": 5},
		},
		{
			name:     "zero total replicas plans 0 everywhere, minimums included",
			spec:     federation.RSPSpec{TotalReplicas: 0, Clusters: prefs{"*": {Weight: 1, MinReplicas: 3}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 0, "B": 0},
		},
		{
			// Order B, A. Minimums: B 0, A 10, 10 left. Pass 1 (sum 2,
			// d 10): B 5; A is offered 5, 15 is above 5 so A is cut to 5
			// and full, which puts 5 back: 10 left. Pass 2: B takes them.
			name:     "a weighted cluster whose minimum is above its max is cut down to the max by the first pass",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"A": {MinReplicas: 10, MaxReplicas: ptr(5), Weight: 1}, "B": {Weight: 1}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 5, "B": 15},
		},
		{
			// Order B (weight 1), A (weight 0). Minimums: A 10, 10 left.
			// Pass 1 (sum 1): B takes 10; A's share is 0 but its 10 are
			// above its max 5, so it is cut to 5, 5 back. Pass 2: B.
			name:     "a weight-0 cluster whose minimum is above its max is cut down too when a weighted pass reaches it",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"A": {MinReplicas: 10, MaxReplicas: ptr(5), Weight: 0}, "B": {Weight: 1}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 5, "B": 15},
		},
		{
			name:     "a weight-0 minimum above its max stands when no pass runs",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"A": {MinReplicas: 10, MaxReplicas: ptr(5), Weight: 0}}},
			clusters: []string{"A"},
			want:     counts{"A": 10},
		},
		{
			name:     "a weighted minimum above its max stands when the minimums use up every replica",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {MinReplicas: 10, MaxReplicas: ptr(5), Weight: 1}}},
			clusters: []string{"A"},
			want:     counts{"A": 10},
		},
		{
			// Minimum 10, 10 left. Pass 1: offered 10, 20 is above 5, cut to
			// 5: 15 left, but nothing grew, so the passes end.
			name:     "cutting a minimum down to the max can leave more replicas unplaced than before",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"A": {MinReplicas: 10, MaxReplicas: ptr(5), Weight: 1}}},
			clusters: []string{"A"},
			want:     counts{"A": 5},
		},
		{
			name:     "running replicas are kept only up to the max",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"*": {Weight: 1}, "A": {Weight: 1, MaxReplicas: ptr(6)}}},
			clusters: []string{"A", "B"},
			current:  counts{"A": 15},
			want:     counts{"A": 6, "B": 14},
		},
		{
			name:     "running replicas are kept only up to the capacity",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B"},
			current:  counts{"A": 15},
			capacity: counts{"A": 4},
			want:     counts{"A": 4, "B": 16},
		},
		{
			name:     "with rebalance running replicas are ignored",
			spec:     federation.RSPSpec{TotalReplicas: 50, Rebalance: true, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B"},
			current:  counts{"A": 10, "B": 70},
			want:     counts{"A": 25, "B": 25},
		},
		{
			name:     "running replicas of a cluster without a preference are ignored",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: 1}}},
			clusters: []string{"A", "B"},
			current:  counts{"B": 7},
			want:     counts{"A": 10, "B": 0},
		},
		{
			name:     "a weight-0 cluster keeps its running replicas without rebalance",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: 1}, "B": {Weight: 0}}},
			clusters: []string{"A", "B"},
			current:  counts{"B": 4},
			want:     counts{"A": 6, "B": 4},
		},
		{
			name:     "a minimum is capped by the capacity",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {MinReplicas: 8}}},
			clusters: []string{"A"},
			capacity: counts{"A": 3},
			want:     counts{"A": 3},
		},
		{
			name:     "capacities of clusters not in the list are ignored",
			spec:     federation.RSPSpec{TotalReplicas: 10, Rebalance: true, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A"},
			capacity: counts{"B": 1},
			want:     counts{"A": 10},
		},
		{
			// Order B, A. Pass 1 (sum 2, d 20): B is offered 10, capped at
			// its max 8 before the capacity 5: overflow 3.
			name:         "the max applies before the capacity, so the overflow is counted from the max",
			spec:         federation.RSPSpec{TotalReplicas: 20, Rebalance: true, Clusters: prefs{"*": {Weight: 1}, "B": {Weight: 1, MaxReplicas: ptr(8)}}},
			clusters:     []string{"A", "B"},
			capacity:     counts{"B": 5},
			want:         counts{"A": 15, "B": 5},
			wantOverflow: counts{"B": 3},
		},
		{
			// Order C, B, A. Pass 1 (sum 3, d 50): each is offered
			// ceil(50/3) = 17 (a capped cluster only takes its 5, so 17 stay
			// available for the next), capped at 5 with overflow 12. 35 are
			// unplaced, more than any overflow, so nothing is trimmed.
			name:         "without rebalance overflow is trimmed only to the replicas left unplaced",
			spec:         federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{"*": {Weight: 1}}},
			clusters:     []string{"A", "B", "C"},
			capacity:     counts{"A": 5, "B": 5, "C": 5},
			want:         counts{"A": 5, "B": 5, "C": 5},
			wantOverflow: counts{"A": 12, "B": 12, "C": 12},
		},
		{
			// Order C, B, A. Pass 1 (sum 3, d 20): C is offered 7, capped
			// at 2 (overflow 5), 18 left; B 7, 11 left; A 7, 4 left. Pass 2
			// (sum 2, d 4): B 2, A 2. Nothing is left, so C's overflow is
			// trimmed to 0 and dropped.
			name:     "without rebalance overflow is dropped when the others took every replica",
			spec:     federation.RSPSpec{TotalReplicas: 20, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C"},
			capacity: counts{"C": 2},
			want:     counts{"A": 9, "B": 9, "C": 2},
		},
		{
			name:         "with rebalance the same overflow is kept",
			spec:         federation.RSPSpec{TotalReplicas: 20, Rebalance: true, Clusters: prefs{"*": {Weight: 1}}},
			clusters:     []string{"A", "B", "C"},
			capacity:     counts{"C": 2},
			want:         counts{"A": 9, "B": 9, "C": 2},
			wantOverflow: counts{"C": 5},
		},
		{
			// Order B, A. A keeps its 30 running (preallocated), 20 left.
			// Pass 1 (sum 2, d 20): B takes 10; A is offered 10, which come
			// out of its preallocated 30, so it does not grow. Pass 2 (d 10):
			// B 5, A's 5 preallocated. Pass 3 (d 5): B 3, A's offer is the 2
			// left, preallocated. Pass 4 (d 2): B 1, A 1 preallocated.
			// Pass 5 (d 1): B 1, nothing left for A. B ends with 20.
			name:     "preallocated replicas count against a cluster's share first",
			spec:     federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B"},
			current:  counts{"A": 30},
			want:     counts{"A": 30, "B": 20},
		},
		{
			name:     "a cluster named in spec.clusters but absent from the list gets nothing and is not in the plan",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: 1, MinReplicas: 5}, "Z": {Weight: 100, MinReplicas: 5}}},
			clusters: []string{"A"},
			want:     counts{"A": 10},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planner.Plan(tt.spec, tt.clusters, tt.key, tt.current, tt.capacity)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Plan)
			assert.Equal(t, tt.wantOverflow, got.Overflow)
		})
	}
}
