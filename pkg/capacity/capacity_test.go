package capacity

import (
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
