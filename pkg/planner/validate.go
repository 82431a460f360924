package planner

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
)

// validate rejects the negative numbers KubeFed's API or its controller
// would never hand to the planner. An estimated capacity may be negative
// (more pods long unschedulable than spec.replicas: KubeFed's estimate,
// pods of another workload matching the selector), and is planned with as
// KubeFed plans with it. The common case, nothing wrong, costs
// one pass over each map and no allocation; the messages are built only
// when something is wrong, in a fixed order (field, then sorted key).
func validate(spec federation.RSPSpec, current, capacity map[string]int64) error {
	bad := spec.TotalReplicas < 0 || anyNegative(current)
	for _, p := range spec.Clusters {
		if p.MinReplicas < 0 || p.Weight < 0 || (p.MaxReplicas != nil && *p.MaxReplicas < 0) {
			bad = true
			break
		}
	}
	if !bad {
		return nil
	}

	var errs []error
	if spec.TotalReplicas < 0 {
		errs = append(errs, fmt.Errorf("totalReplicas must not be negative, got %d", spec.TotalReplicas))
	}
	for _, name := range slices.Sorted(maps.Keys(spec.Clusters)) {
		p := spec.Clusters[name]
		if p.MinReplicas < 0 {
			errs = append(errs, fmt.Errorf("clusters[%q].minReplicas must not be negative, got %d", name, p.MinReplicas))
		}
		if p.MaxReplicas != nil && *p.MaxReplicas < 0 {
			errs = append(errs, fmt.Errorf("clusters[%q].maxReplicas must not be negative, got %d", name, *p.MaxReplicas))
		}
		if p.Weight < 0 {
			errs = append(errs, fmt.Errorf("clusters[%q].weight must not be negative, got %d", name, p.Weight))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(current)) {
		if v := current[name]; v < 0 {
			errs = append(errs, fmt.Errorf("current replicas of cluster %q must not be negative, got %d", name, v))
		}
	}
	return errors.Join(errs...)
}

func anyNegative(m map[string]int64) bool {
	for _, v := range m {
		if v < 0 {
			return true
		}
	}
	return false
}

// duplicateError names every cluster listed more than once, sorted.
func duplicateError(clusters []string) error {
	sorted := slices.Sorted(slices.Values(clusters))
	var dups []string
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] && (len(dups) == 0 || dups[len(dups)-1] != sorted[i]) {
			dups = append(dups, sorted[i])
		}
	}
	quoted := make([]string, len(dups))
	for i, d := range dups {
		quoted[i] = fmt.Sprintf("%q", d)
	}
	noun := "cluster"
	if len(dups) > 1 {
		noun = "clusters"
	}
	return fmt.Errorf("%s %s listed more than once", noun, strings.Join(quoted, ", "))
}

// weightSumError reports weights whose sum KubeFed's planner would wrap
// around.
func weightSumError(ents []entry, active []int) error {
	names := make([]string, len(active))
	for i, a := range active {
		names[i] = fmt.Sprintf("%q", ents[a].name)
	}
	slices.Sort(names)
	return fmt.Errorf("the weights of clusters %s add up to more than %d, which KubeFed's planner would wrap around; use smaller weights",
		strings.Join(names, ", "), int64(math.MaxInt64))
}

// shareError reports a share whose computation, d·weight + sum − 1, KubeFed's
// planner would wrap around.
func shareError(cluster string, weight, distribute, weightSum int64) error {
	return fmt.Errorf("weight %d of cluster %q times %d replicas to distribute (plus weight sum %d) exceeds %d, which KubeFed's planner would wrap around; use smaller weights",
		weight, cluster, distribute, weightSum, int64(math.MaxInt64))
}
