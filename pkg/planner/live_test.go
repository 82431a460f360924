package planner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/fedctl/fedctl/pkg/planner"
)

func TestAnalyzePods(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ready := planner.PodCondition{Type: "Ready", Status: "True"}
	notReady := planner.PodCondition{Type: "Ready", Status: "False"}
	unsched := func(ago time.Duration) planner.PodCondition {
		return planner.PodCondition{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", LastTransitionTime: now.Add(-ago)}
	}
	for _, tc := range []struct {
		name string
		pods []planner.Pod
		want planner.PodCounts
	}{
		{"running and ready", []planner.Pod{{Phase: "Running", Conditions: []planner.PodCondition{ready}}}, planner.PodCounts{RunningAndReady: 1}},
		{"a Ready condition counts whatever its status (KubeFed's quirk)", []planner.Pod{{Phase: "Running", Conditions: []planner.PodCondition{notReady}}}, planner.PodCounts{RunningAndReady: 1}},
		{"pending pods are not running", []planner.Pod{{Phase: "Pending", Conditions: []planner.PodCondition{ready}}}, planner.PodCounts{}},
		{"unschedulable for 61 s counts, for 30 s only now", []planner.Pod{
			{Phase: "Pending", Conditions: []planner.PodCondition{unsched(61 * time.Second)}},
			{Phase: "Pending", Conditions: []planner.PodCondition{unsched(30 * time.Second)}},
		}, planner.PodCounts{Unschedulable: 1, UnschedulableNow: 2}},
		{"exactly 60 s is not yet more than the threshold", []planner.Pod{{Phase: "Pending", Conditions: []planner.PodCondition{unsched(60 * time.Second)}}}, planner.PodCounts{UnschedulableNow: 1}},
		{"scheduled=False for another reason is not unschedulable", []planner.Pod{{Phase: "Pending", Conditions: []planner.PodCondition{{Type: "PodScheduled", Status: "False", Reason: "SchedulingGated", LastTransitionTime: now.Add(-time.Hour)}}}}, planner.PodCounts{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, planner.AnalyzePods(tc.pods, now))
		})
	}
}

func TestMemberReplicas(t *testing.T) {
	now := time.Now()
	running := planner.Pod{Phase: "Running", Conditions: []planner.PodCondition{{Type: "Ready", Status: "True"}}}
	stuck := planner.Pod{Phase: "Pending", Conditions: []planner.PodCondition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable", LastTransitionTime: now.Add(-2 * time.Minute)}}}
	pods := func(p ...planner.Pod) []planner.Pod { return p }

	cur, capa, capped := planner.MemberReplicas(3, 3, pods(stuck, stuck), now)
	assert.Equal(t, []any{int64(3), int64(0), false}, []any{cur, capa, capped}, "ready replicas equal to spec: the pods are not read")

	cur, capa, capped = planner.MemberReplicas(5, 2, pods(running, running, stuck, stuck), now)
	assert.Equal(t, []any{int64(2), int64(3), true}, []any{cur, capa, capped}, "capacity = spec.replicas - unschedulable")

	cur, _, capped = planner.MemberReplicas(5, 2, pods(running), now)
	assert.Equal(t, []any{int64(1), false}, []any{cur, capped})
}
