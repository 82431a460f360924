package capacity

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPodRequests(t *testing.T) {
	spec := map[string]any{
		"containers": []any{
			map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "250m", "memory": "64Mi"}}},
			map[string]any{"resources": map[string]any{"limits": map[string]any{"cpu": "1", "memory": "128Mi"}}}, // limit stands in
		},
		"initContainers": []any{
			map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "2"}}}, // larger than the sum: wins
		},
	}
	assert.Equal(t, Amounts{"cpu": 2000, "memory": (64 + 128) << 20 * 1000}, PodRequests(spec))
	assert.Equal(t, Amounts{"cpu": 0, "memory": 0}, PodRequests(map[string]any{"containers": []any{map[string]any{}}}))
}

func TestFreeAndCheck(t *testing.T) {
	nodes := []Node{
		{Allocatable: map[string]any{"cpu": "4", "memory": "8Gi"}},
		{Allocatable: map[string]any{"cpu": "4", "memory": "8Gi"}, Unschedulable: true}, // cordoned node: not counted
	}
	running := []map[string]any{{"containers": []any{map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "3", "memory": "1Gi"}}}}}}
	free := Free(nodes, running)
	assert.Equal(t, Amounts{"cpu": 1000, "memory": 7 << 30 * 1000}, free)

	// a pod on the cordoned node takes nothing from the counted one
	named := []Node{{Name: "n1", Allocatable: map[string]any{"cpu": "4"}}, {Name: "n2", Allocatable: map[string]any{"cpu": "4"}, Unschedulable: true}}
	onClosed := map[string]any{"nodeName": "n2", "containers": []any{map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "3"}}}}}
	onOpen := map[string]any{"nodeName": "n1", "containers": []any{map[string]any{"resources": map[string]any{"requests": map[string]any{"cpu": "1"}}}}}
	assert.Equal(t, Amounts{"cpu": 3000, "memory": 0}, Free(named, []map[string]any{onClosed, onOpen}))

	per := Amounts{"cpu": 500, "memory": 256 << 20 * 1000}
	rows := Check([]Move{{Member: "b", Workload: "shop/web", Replicas: 3, PerReplica: per}, {Member: "a", Workload: "shop/web", Replicas: 1, PerReplica: per}},
		map[string]Amounts{"a": free, "b": free})
	assert.Equal(t, []Row{
		{Member: "a", Resource: "cpu", Needed: 500, Free: 1000},
		{Member: "a", Resource: "memory", Needed: 256 << 20 * 1000, Free: 7 << 30 * 1000},
		{Member: "b", Resource: "cpu", Needed: 1500, Free: 1000},
		{Member: "b", Resource: "memory", Needed: 768 << 20 * 1000, Free: 7 << 30 * 1000},
	}, rows)
	assert.True(t, rows[0].OK())
	assert.False(t, rows[2].OK(), "3 × 500m do not fit in 1 core")
	assert.Equal(t, "1500m", Format("cpu", 1500))
	assert.Equal(t, "2", Format("cpu", 2000))
	assert.Equal(t, "768Mi", Format("memory", 768<<20*1000))
}

func TestDegrade(t *testing.T) {
	cpu := func(m int64) Amounts { return Amounts{"cpu": m} }
	moves := []Move{
		{Member: "a", Workload: "web", Replicas: 3, PerReplica: cpu(1000), Before: 2, Min: 1, Priority: 10},
		{Member: "a", Workload: "batch", Replicas: 3, PerReplica: cpu(1000), Before: 1, Min: 0, Priority: 1},
		{Member: "a", Workload: "cron", Replicas: 1, PerReplica: cpu(500), Before: 0, Min: 0, Priority: 1},
		{Member: "b", Workload: "web", Replicas: 2, PerReplica: cpu(1000), Before: 2, Min: 1, Priority: 10},
	}
	orig := slices.Clone(moves)

	// a needs 6.5 cores and has 4 free: batch (lowest priority, before
	// cron by name) gives up the 3 replicas that cover the 2.5 missing;
	// cron and web keep theirs. b fits.
	got, cuts := Degrade(moves, map[string]Amounts{"a": cpu(4000), "b": cpu(2000)})
	assert.Equal(t, []Cut{
		{Member: "a", Workload: "batch", Planned: 4, Kept: 1, Min: 0, Priority: 1},
	}, cuts)
	for _, r := range Check(got, map[string]Amounts{"a": cpu(4000), "b": cpu(2000)}) {
		assert.True(t, r.OK(), "%+v", r)
	}
	assert.Equal(t, orig, moves, "the input is not modified")

	// Below what ran before, down to the minimums, and no further: a's
	// node is overcommitted by 3 cores, so batch goes to 0 (freeing its
	// running replica), cron to 0, and web to its minimum 1 (freeing one
	// running replica); it still lacks a core, which Check shows.
	got, cuts = Degrade(moves, map[string]Amounts{"a": cpu(-3000), "b": cpu(2000)})
	assert.Equal(t, []Cut{
		{Member: "a", Workload: "batch", Planned: 4, Kept: 0, Min: 0, Priority: 1},
		{Member: "a", Workload: "cron", Planned: 1, Kept: 0, Min: 0, Priority: 1},
		{Member: "a", Workload: "web", Planned: 5, Kept: 1, Min: 1, Priority: 10},
	}, cuts)
	rows := Check(got, map[string]Amounts{"a": cpu(-3000), "b": cpu(2000)})
	assert.Equal(t, Row{Member: "a", Resource: "cpu", Needed: -2000, Free: -3000}, rows[0], "web 1 and batch 0 free 2 of the 3 running cores")
	assert.False(t, rows[0].OK())

	// Nothing to cut when everything fits; a workload that needs nothing
	// of the short resource is not cut.
	_, cuts = Degrade(moves, map[string]Amounts{"a": cpu(10000), "b": cpu(10000)})
	assert.Empty(t, cuts)
	_, cuts = Degrade([]Move{{Member: "a", Workload: "mem", Replicas: 2, PerReplica: Amounts{"memory": 5}}, {Member: "a", Workload: "web", Replicas: 2, PerReplica: cpu(1000), Priority: 5}},
		map[string]Amounts{"a": {"cpu": 1000, "memory": 100}})
	assert.Equal(t, []Cut{{Member: "a", Workload: "web", Planned: 2, Kept: 1, Priority: 5}}, cuts)
}
