package planner_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// TestScheduleTraceAgreesWithSchedule: the traced plan is the plan, on
// random inputs, and the steps account for it: each cluster's last step
// holds its planned total, and the final step the replicas left unplaced.
func TestScheduleTraceAgreesWithSchedule(t *testing.T) {
	t.Parallel()
	for _, in := range randomInputs(3000) {
		want, err := planner.Schedule(in.spec, in.clusters, in.key, in.current, in.capacity)
		require.NoError(t, err, "%v", in)
		tr, err := planner.ScheduleTrace(in.spec, in.clusters, in.key, in.current, in.capacity)
		require.NoError(t, err, "%v", in)
		require.Equal(t, want, tr.Scheduled, "%v", in)
		require.Equal(t, len(in.spec.Clusters) == 0, tr.Defaulted, "%v", in)
		plain, err := planner.Plan(tr.Spec, in.clusters, in.key, in.current, in.capacity)
		require.NoError(t, err)
		require.Equal(t, plain, tr.Result, "%v", in)

		last := map[string]int64{}
		for _, s := range tr.Steps {
			switch s.Kind {
			case planner.StepUnmatched:
				last[s.Cluster] = 0
			case planner.StepMinimum, planner.StepPreallocated, planner.StepShare:
				last[s.Cluster] = s.Total
			}
		}
		require.Equal(t, plain.Plan, last, "each cluster's last step holds its plan: %v", in)
		require.NotEmpty(t, tr.Steps)
		done := tr.Steps[len(tr.Steps)-1]
		require.Equal(t, planner.StepDone, done.Kind)
		require.Equal(t, int64(tr.Spec.TotalReplicas)-sum(plain.Plan), done.Remaining, "%v", in)
	}
}

func TestScheduleTraceSteps(t *testing.T) {
	t.Parallel()
	// The seed's example: A{min 4, max 6, weight 1} and B{min 4, max 8,
	// weight 2} over 9 replicas, key test-ns/test-deployment: B first.
	spec := federation.RSPSpec{TotalReplicas: 9, Clusters: prefs{
		"A": {MinReplicas: 4, MaxReplicas: ptr(6), Weight: 1},
		"B": {MinReplicas: 4, MaxReplicas: ptr(8), Weight: 2},
	}}
	tr, err := planner.ScheduleTrace(spec, []string{"C", "A", "B"}, docsKey, nil, nil)
	require.NoError(t, err)
	assert.False(t, tr.Defaulted)
	assert.Equal(t, counts{"A": 4, "B": 5, "C": 0}, tr.Scheduled)
	assert.Equal(t, []planner.Step{
		{Kind: planner.StepUnmatched, Cluster: "C"},
		{Kind: planner.StepOrdered, Cluster: "B", Preference: "B", MinReplicas: 4, MaxReplicas: ptr(8), Weight: 2, Hash: 0x3f654b26},
		{Kind: planner.StepOrdered, Cluster: "A", Preference: "A", MinReplicas: 4, MaxReplicas: ptr(6), Weight: 1, Hash: 0x4f4678bf},
		{Kind: planner.StepMinimum, Cluster: "B", Replicas: 4, Total: 4, Remaining: 5},
		{Kind: planner.StepMinimum, Cluster: "A", Replicas: 4, Total: 4, Remaining: 1},
		{Kind: planner.StepPass, Pass: 1, WeightSum: 3, Distribute: 1, Remaining: 1},
		{Kind: planner.StepShare, Cluster: "B", Pass: 1, Weight: 2, WeightSum: 3, Distribute: 1, Share: 1, Offered: 1, Replicas: 1, Total: 5},
		{Kind: planner.StepShare, Cluster: "A", Pass: 1, Weight: 1, WeightSum: 3, Distribute: 1, Share: 1, Offered: 0, Replicas: 0, Total: 4},
		{Kind: planner.StepDone},
	}, tr.Steps)

	// An empty spec.clusters plans as {"*": {weight: 1}}, which the ordered
	// steps name as the preference used.
	tr, err = planner.ScheduleTrace(federation.RSPSpec{TotalReplicas: 2}, []string{"A", "B"}, "", nil, nil)
	require.NoError(t, err)
	assert.True(t, tr.Defaulted)
	assert.Equal(t, prefs{"*": {Weight: 1}}, tr.Spec.Clusters)
	assert.Equal(t, planner.Step{Kind: planner.StepOrdered, Cluster: "B", Preference: "*", Weight: 1, Hash: 0x050c5d5d}, tr.Steps[0])
}
