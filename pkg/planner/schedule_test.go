package planner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

func TestKey(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "test-ns/test-deployment", planner.Key("test-ns", "test-deployment"), "namespace/name")
	assert.Equal(t, "web", planner.Key("", "web"), "the bare name without a namespace, as QualifiedName.String")
}

func TestSchedule(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		spec     federation.RSPSpec
		clusters []string
		key      string
		current  counts
		capacity counts
		want     counts
		wantErr  string
	}{
		{
			name:     "an empty spec.clusters defaults to weight 1 everywhere",
			spec:     federation.RSPSpec{TotalReplicas: 9},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 3, "B": 3, "C": 3},
		},
		{
			name:     "an empty but non-nil spec.clusters defaults too",
			spec:     federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{}},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 3, "B": 3, "C": 3},
		},
		{
			name:     "the default uses the key: 50 over A, B, C with test-ns/test-deployment gives C the smaller share",
			spec:     federation.RSPSpec{TotalReplicas: 50},
			clusters: []string{"A", "B", "C"}, key: docsKey,
			want: counts{"A": 17, "B": 17, "C": 16},
		},
		{
			name:     "clusters without a preference are scheduled 0, and so placed",
			spec:     federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{"A": {Weight: 1}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 9, "B": 0},
		},
		{
			// Plan A20 B20 C10 plus overflow C7.
			name:     "TestWithExistingAndCapacity#1 writes plan plus overflow, C=17, 57 for a total of 50",
			spec:     federation.RSPSpec{TotalReplicas: 50, Rebalance: true, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C"},
			current:  counts{}, capacity: counts{"C": 10},
			want: counts{"A": 20, "B": 20, "C": 17},
		},
		{
			// Plan A10 B10 C0 plus the untrimmed overflow A20 B20.
			name:     "TestWithExistingAndCapacity#5 writes the overflow kept without rebalance",
			spec:     federation.RSPSpec{TotalReplicas: 60, Clusters: prefs{"A": {Weight: 1}, "B": {Weight: 1}}},
			clusters: []string{"A", "B", "C"},
			capacity: counts{"A": 10, "B": 10},
			want:     counts{"A": 30, "B": 30, "C": 0},
		},
		{
			name:     "a cluster holding a member object but missing from the list is scheduled 0",
			spec:     federation.RSPSpec{TotalReplicas: 50, Clusters: prefs{"*": {Weight: 1}, "C": {Weight: 1, MaxReplicas: ptr(20)}}},
			clusters: []string{"A", "C"}, key: docsKey,
			current: counts{"B": 0},
			want:    counts{"A": 30, "B": 0, "C": 20},
		},
		{
			name:     "a member object in a listed cluster keeps its plan, not 0",
			spec:     federation.RSPSpec{TotalReplicas: 4, Rebalance: true},
			clusters: []string{"A", "B"},
			current:  counts{"A": 0, "B": 9},
			want:     counts{"A": 2, "B": 2},
		},
		{
			// KubeFed by hand: the minimum step plans -1 (the capacity)
			// and leaves 4; the pass offers 4, over capacity, so -1 with
			// an overflow of 4; schedule() writes -1 + 4.
			name:     "a negative capacity (more pods long unschedulable than spec.replicas) is planned with as KubeFed does",
			spec:     federation.RSPSpec{TotalReplicas: 3, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A"},
			current:  counts{"A": 0}, capacity: counts{"A": -1},
			want: counts{"A": 3},
		},
		{
			name:     "nothing to schedule without clusters",
			spec:     federation.RSPSpec{TotalReplicas: 5},
			clusters: nil,
			want:     counts{},
		},
		{
			name:     "Plan's errors come back unchanged",
			spec:     federation.RSPSpec{TotalReplicas: -1},
			clusters: []string{"A"},
			wantErr:  "totalReplicas must not be negative, got -1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planner.Schedule(tt.spec, tt.clusters, tt.key, tt.current, tt.capacity)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestScheduleDoesNotModifyItsInputs(t *testing.T) {
	t.Parallel()
	spec := federation.RSPSpec{TotalReplicas: 10}
	current := counts{"X": 3}
	first, err := planner.Schedule(spec, []string{"A", "B"}, "", current, nil)
	require.NoError(t, err)
	assert.Nil(t, spec.Clusters, "the default is applied to a copy")
	assert.Equal(t, counts{"X": 3}, current)

	// The result is the caller's: changing it changes no later schedule.
	first["A"] = 1000
	first["Q"] = 1
	second, err := planner.Schedule(spec, []string{"A", "B"}, "", current, nil)
	require.NoError(t, err)
	assert.Equal(t, counts{"A": 5, "B": 5, "X": 0}, second)
}
