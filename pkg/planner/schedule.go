package planner

import "github.com/fedctl/fedctl/pkg/federation"

// defaultClusters is what KubeFed's RSP controller plans with when
// spec.clusters is empty: every cluster, weight 1 ("TODO: Move this to API
// defaulting logic" in GetSchedulingResult). Read only.
var defaultClusters = map[string]federation.ClusterPreferences{Wildcard: {Weight: 1}}

// Key is the key KubeFed's RSP controller plans with: "<namespace>/<name>"
// of the ReplicaSchedulingPreference (which is also its target's), or the
// bare name when the namespace is empty (QualifiedName.String).
func Key(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// Schedule returns the replicas KubeFed's RSP controller writes into the
// target's placement and /spec/replicas overrides (schedule() in
// pkg/schedulingtypes/replicascheduler.go):
//
//   - an empty spec.Clusters counts as {"*": {weight: 1}};
//   - Plan runs with key, which should be Key(namespace, name) of the RSP;
//   - each cluster gets its plan plus its overflow, so with estimated
//     capacities the result can sum to more than totalReplicas;
//   - a cluster with an entry in current, that is one that already holds a
//     member object (KubeFed records 0 running replicas for an object with
//     none), appears with at least 0 even when Plan has no entry for it.
//     KubeFed only ever has such entries for clusters in the list, which
//     Plan covers already.
//
// Every cluster in the result is placed, those with 0 included, as KubeFed
// does. Errors are Plan's, unwrapped. Inputs are not modified.
func Schedule(spec federation.RSPSpec, clusters []string, key string, current, capacity map[string]int64) (map[string]int64, error) {
	if len(spec.Clusters) == 0 {
		spec.Clusters = defaultClusters // spec is a copy
	}
	res, err := Plan(spec, clusters, key, current, capacity)
	if err != nil {
		return nil, err
	}
	return scheduled(res, current), nil
}

// scheduled is Schedule's result from Plan's: the plan plus the overflow,
// and at least 0 for every cluster in current. It extends res.Plan.
func scheduled(res Result, current map[string]int64) map[string]int64 {
	out := res.Plan // Plan's map is ours to extend
	for name := range current {
		if _, ok := out[name]; !ok {
			out[name] = 0
		}
	}
	for name, extra := range res.Overflow {
		out[name] += extra
	}
	return out
}
