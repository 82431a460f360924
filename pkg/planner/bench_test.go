package planner_test

import (
	"testing"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// benchInput is a realistic preference over 10 members: a wildcard, members
// with their own weight, minimum and maximum, one excluded by weight 0, and
// replicas already running in some (rebalance off).
func benchInput() (federation.RSPSpec, []string, counts) {
	spec := federation.RSPSpec{
		TotalReplicas: 97,
		Clusters: prefs{
			"*":       {Weight: 1},
			"eu-1":    {Weight: 3, MinReplicas: 2, MaxReplicas: ptr(20)},
			"eu-2":    {Weight: 3, MinReplicas: 2},
			"us-1":    {Weight: 2, MaxReplicas: ptr(8)},
			"us-2":    {Weight: 2, MinReplicas: 1, MaxReplicas: ptr(30)},
			"ap-1":    {Weight: 1, MinReplicas: 1},
			"staging": {Weight: 0, MinReplicas: 1},
		},
	}
	clusters := []string{"ap-1", "ap-2", "eu-1", "eu-2", "eu-3", "sa-1", "staging", "us-1", "us-2", "us-3"}
	current := counts{"eu-1": 12, "us-1": 9, "ap-2": 3}
	return spec, clusters, current
}

func BenchmarkPlan(b *testing.B) {
	spec, clusters, current := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := planner.Plan(spec, clusters, "shop/web", current, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSchedule(b *testing.B) {
	spec, clusters, current := benchInput()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := planner.Schedule(spec, clusters, planner.Key("shop", "web"), current, nil); err != nil {
			b.Fatal(err)
		}
	}
}
