package planner

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
)

type steps []step

func (s *steps) record(st step) { *s = append(*s, st) }

// TestPlanRecordsEveryStep checks that the recorder hook, which a later
// "fedctl explain" builds on, sees each rule applied in order with the
// numbers that decided it, and that recording does not change the plan.
func TestPlanRecordsEveryStep(t *testing.T) {
	t.Parallel()
	spec := federation.RSPSpec{TotalReplicas: 50, Rebalance: true, Clusters: map[string]federation.ClusterPreferences{
		"A": {Weight: 1},
		"B": {Weight: 1, MinReplicas: 5},
		"C": {Weight: 1, MaxReplicas: ptr(12)},
	}}
	clusters := []string{"A", "Z", "C", "B"}
	capacity := map[string]int64{"A": 15}

	var got steps
	res, err := plan(spec, clusters, "", nil, capacity, &got)
	require.NoError(t, err)
	plain, err := Plan(spec, clusters, "", nil, capacity)
	require.NoError(t, err)
	assert.Equal(t, plain, res)
	assert.Equal(t, map[string]int64{"A": 15, "B": 23, "C": 12, "Z": 0}, res.Plan)
	assert.Equal(t, map[string]int64{"A": 1}, res.Overflow)

	// Order C, B, A (one-letter names, empty key). Minimums: B 5, 45 left.
	// Pass 1 (sum 3, d 45): C is offered 15 and capped at its max 12, full;
	// B 15 → 20; A 15 → 15, at its capacity but not above it, so it stays;
	// 3 left. Pass 2 (sum 2, d 3): B 2 → 22; A is offered the 1 left,
	// 16 is above its capacity: overflow 1, cut to 15, full. Pass 3 (sum 1,
	// d 1): B 1 → 23. Z has no preference.
	want := steps{
		{kind: stepUnmatched, cluster: "Z"},
		{kind: stepOrdered, cluster: "C", weight: 1, hash: 0x050c5d5c},
		{kind: stepOrdered, cluster: "B", weight: 1, hash: 0x050c5d5d},
		{kind: stepOrdered, cluster: "A", weight: 1, hash: 0x050c5d5e},
		{kind: stepMinimum, cluster: "C", replicas: 0, total: 0, remaining: 50},
		{kind: stepMinimum, cluster: "B", replicas: 5, total: 5, remaining: 45},
		{kind: stepMinimum, cluster: "A", replicas: 0, total: 0, remaining: 45},
		{kind: stepPass, pass: 1, weightSum: 3, distribute: 45, remaining: 45},
		{kind: stepShare, cluster: "C", pass: 1, weight: 1, weightSum: 3, distribute: 45, share: 15, offered: 15, replicas: 12, total: 12, cappedByMax: true, full: true, remaining: 33},
		{kind: stepShare, cluster: "B", pass: 1, weight: 1, weightSum: 3, distribute: 45, share: 15, offered: 15, replicas: 15, total: 20, remaining: 18},
		{kind: stepShare, cluster: "A", pass: 1, weight: 1, weightSum: 3, distribute: 45, share: 15, offered: 15, replicas: 15, total: 15, remaining: 3},
		{kind: stepPass, pass: 2, weightSum: 2, distribute: 3, remaining: 3},
		{kind: stepShare, cluster: "B", pass: 2, weight: 1, weightSum: 2, distribute: 3, share: 2, offered: 2, replicas: 2, total: 22, remaining: 1},
		{kind: stepShare, cluster: "A", pass: 2, weight: 1, weightSum: 2, distribute: 3, share: 2, offered: 1, replicas: 0, total: 15, cappedByCapacity: true, overflow: 1, full: true, remaining: 1},
		{kind: stepPass, pass: 3, weightSum: 1, distribute: 1, remaining: 1},
		{kind: stepShare, cluster: "B", pass: 3, weight: 1, weightSum: 1, distribute: 1, share: 1, offered: 1, replicas: 1, total: 23, remaining: 0},
		{kind: stepOverflow, cluster: "A", overflow: 1, remaining: 0},
		{kind: stepDone, remaining: 0},
	}
	assert.Equal(t, want, got)
}

func ptr(v int64) *int64 { return &v }
