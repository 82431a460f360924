package planner_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

func TestPlanValidation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		spec     federation.RSPSpec
		clusters []string
		current  counts
		capacity counts
		wantErr  string
	}{
		{
			name:     "negative totalReplicas is rejected",
			spec:     federation.RSPSpec{TotalReplicas: -5, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A"},
			wantErr:  "totalReplicas must not be negative, got -5",
		},
		{
			name:     "a negative minReplicas names the cluster key and the field",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"eu-1": {MinReplicas: -1}}},
			clusters: []string{"eu-1"},
			wantErr:  `clusters["eu-1"].minReplicas must not be negative, got -1`,
		},
		{
			name:     "a negative maxReplicas names the cluster key and the field",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"*": {MaxReplicas: ptr(-2), Weight: 1}}},
			clusters: []string{"A"},
			wantErr:  `clusters["*"].maxReplicas must not be negative, got -2`,
		},
		{
			name:     "a negative weight names the cluster key and the field",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"A": {Weight: -3}}},
			clusters: []string{"A"},
			wantErr:  `clusters["A"].weight must not be negative, got -3`,
		},
		{
			name:     "a negative preference is rejected even for a cluster that is not planned",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"A": {Weight: 1}, "gone": {Weight: -1}}},
			clusters: []string{"A"},
			wantErr:  `clusters["gone"].weight must not be negative, got -1`,
		},
		{
			name:     "negative current replicas are rejected",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A"},
			current:  counts{"A": -1},
			wantErr:  `current replicas of cluster "A" must not be negative, got -1`,
		},
		{
			name: "every problem is reported at once, in a fixed order",
			spec: federation.RSPSpec{TotalReplicas: -1, Clusters: prefs{
				"B": {MinReplicas: -1, MaxReplicas: ptr(-1), Weight: -1},
				"A": {Weight: -2},
			}},
			clusters: []string{"A", "B"},
			current:  counts{"B": -3, "A": -4},
			capacity: counts{"A": -5},
			wantErr: "totalReplicas must not be negative, got -1\n" +
				`clusters["A"].weight must not be negative, got -2` + "\n" +
				`clusters["B"].minReplicas must not be negative, got -1` + "\n" +
				`clusters["B"].maxReplicas must not be negative, got -1` + "\n" +
				`clusters["B"].weight must not be negative, got -1` + "\n" +
				`current replicas of cluster "A" must not be negative, got -4` + "\n" +
				`current replicas of cluster "B" must not be negative, got -3`,
		},
		{
			name:     "a cluster listed twice is rejected",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "A"},
			wantErr:  `cluster "A" listed more than once`,
		},
		{
			name:     "a cluster without a preference listed twice is rejected too",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"A": {Weight: 1}}},
			clusters: []string{"B", "A", "B"},
			wantErr:  `cluster "B" listed more than once`,
		},
		{
			name:     "every cluster listed twice is named, sorted",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"A": {Weight: 1}}},
			clusters: []string{"C", "A", "C", "B", "A", "B", "C"},
			wantErr:  `clusters "A", "B", "C" listed more than once`,
		},
		{
			name:     "weights adding up past MaxInt64 are rejected where KubeFed would wrap around",
			spec:     federation.RSPSpec{TotalReplicas: 5, Clusters: prefs{"*": {Weight: math.MaxInt64 / 2}, "C": {Weight: 2}}},
			clusters: []string{"A", "B", "C"},
			wantErr:  `the weights of clusters "A", "B", "C" add up to more than 9223372036854775807, which KubeFed's planner would wrap around; use smaller weights`,
		},
		{
			// 10·(2^62) does not fit in int64.
			name:     "a share whose product overflows int64 is rejected where KubeFed would wrap around",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: 1 << 62}}},
			clusters: []string{"A"},
			wantErr:  `weight 4611686018427387904 of cluster "A" times 10 replicas to distribute (plus weight sum 4611686018427387904) exceeds 9223372036854775807, which KubeFed's planner would wrap around; use smaller weights`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planner.Plan(tt.spec, tt.clusters, "", tt.current, tt.capacity)
			require.EqualError(t, err, tt.wantErr)
			assert.Zero(t, got)
		})
	}
}

// TestPlanAcceptsWhatKubeFedAccepts pins inputs that look wrong but that
// KubeFed plans without complaint, so fedctl must too.
func TestPlanAcceptsWhatKubeFedAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		spec     federation.RSPSpec
		clusters []string
		want     counts
	}{
		{
			name:     "minReplicas above maxReplicas is accepted",
			spec:     federation.RSPSpec{TotalReplicas: 3, Clusters: prefs{"A": {MinReplicas: 3, MaxReplicas: ptr(1), Weight: 1}}},
			clusters: []string{"A"},
			want:     counts{"A": 3},
		},
		{
			name:     "huge weights are fine while KubeFed's arithmetic does not overflow",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: math.MaxInt64 / 20}, "B": {Weight: math.MaxInt64 / 20}}},
			clusters: []string{"A", "B"},
			want:     counts{"A": 5, "B": 5},
		},
		{
			// The minimum uses up every replica, so KubeFed never computes
			// a share and never overflows.
			name:     "an overflowing weight is fine when no weighted pass runs",
			spec:     federation.RSPSpec{TotalReplicas: 10, Clusters: prefs{"A": {Weight: math.MaxInt64, MinReplicas: 10}}},
			clusters: []string{"A"},
			want:     counts{"A": 10},
		},
		{
			name:     "a cluster named \"*\" simply takes the wildcard preference",
			spec:     federation.RSPSpec{TotalReplicas: 4, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{"*", "A"},
			want:     counts{"*": 2, "A": 2},
		},
		{
			name:     "an empty cluster name is planned like any other",
			spec:     federation.RSPSpec{TotalReplicas: 4, Clusters: prefs{"*": {Weight: 1}}},
			clusters: []string{""},
			want:     counts{"": 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := planner.Plan(tt.spec, tt.clusters, "", nil, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Plan)
		})
	}
}
