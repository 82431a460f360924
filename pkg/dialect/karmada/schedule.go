package karmada

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/placement"
)

// workload is what Karmada's replica interpreter reads from an object
// (pkg/resourceinterpreter/default/native/replica.go): its replicas and
// whether its pods state requirements (requests, a node selector,
// tolerations or required node affinity; helper.GenerateReplicaRequirements).
type workload struct {
	// Field is the field ReviseReplica writes per member ("replicas",
	// "parallelism" for a Job, "" for a Pod, which is never revised).
	Field        string
	Replicas     int32
	Requirements bool
	// Defaulted: the manifest leaves Field out, and Replicas is what
	// Karmada's API server defaults it to (1).
	Defaulted bool
}

// workloadOf is the workload view of an object, or false for a kind Karmada
// has no replica interpreter for, which goes to every candidate unchanged.
func workloadOf(kind string, obj map[string]any) (workload, bool) {
	spec, _ := obj["spec"].(map[string]any)
	podSpec := func(m map[string]any) map[string]any {
		t, _ := m["template"].(map[string]any)
		s, _ := t["spec"].(map[string]any)
		return s
	}
	// Unset counts are what Karmada's API server defaults them to before
	// its scheduler reads them (replicas and parallelism 1).
	switch kind {
	case "Deployment", "ReplicaSet", "StatefulSet":
		_, set := spec["replicas"]
		return workload{Field: "replicas", Replicas: intField(spec, "replicas", 1), Requirements: requirements(podSpec(spec)), Defaulted: !set}, true
	case "Job":
		_, set := spec["parallelism"]
		parallelism := intField(spec, "parallelism", 1)
		completions := intField(spec, "completions", parallelism)
		return workload{Field: "parallelism", Replicas: min(parallelism, completions), Requirements: requirements(podSpec(spec)), Defaulted: !set}, true
	case "Pod":
		return workload{Replicas: 1, Requirements: requirements(spec)}, true
	}
	return workload{}, false
}

func intField(m map[string]any, key string, def int32) int32 {
	switch v := m[key].(type) {
	case int64:
		return int32(v)
	case float64:
		return int32(v)
	case int:
		return int32(v)
	}
	return def
}

// requirements says whether a pod spec states what Karmada counts as
// replica requirements. A limit counts as a request: the API server
// defaults requests from limits before Karmada reads the template.
func requirements(pod map[string]any) bool {
	if pod == nil {
		return false
	}
	if ns, ok := pod["nodeSelector"].(map[string]any); ok && ns != nil {
		return true
	}
	if t, ok := pod["tolerations"].([]any); ok && len(t) > 0 {
		return true
	}
	if aff, ok := pod["affinity"].(map[string]any); ok {
		if na, ok := aff["nodeAffinity"].(map[string]any); ok && na["requiredDuringSchedulingIgnoredDuringExecution"] != nil {
			return true
		}
	}
	if o, ok := pod["overhead"].(map[string]any); ok && len(o) > 0 {
		return true
	}
	for _, key := range []string{"containers", "initContainers"} {
		list, _ := pod[key].([]any)
		for _, c := range list {
			cm, _ := c.(map[string]any)
			res, _ := cm["resources"].(map[string]any)
			for _, k := range []string{"requests", "limits"} {
				if q, ok := res[k].(map[string]any); ok && len(q) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// candidates are the members a placement's affinity selects
// (pkg/scheduler/framework/plugins/clusteraffinity). With
// clusterAffinities, the groups are tried in order and the first that can
// be scheduled is used (pkg/scheduler/scheduler.go,
// scheduleResourceBindingWithClusterAffinities): without capacity
// estimates, "can be scheduled" means "selects a member that answers"
// (Karmada filters out clusters that are not ready); offline every member
// answers. The group's members that do not answer are left out, as
// Karmada's not-ready taint leaves them out.
func candidates(members []placement.Cluster, p placementSpec) ([]placement.Cluster, string) {
	groups := candidateGroups(members, p)
	if len(groups) == 0 {
		return nil, "clusterAffinities: no group selects a member that answers"
	}
	return groups[0].members, groups[0].why
}

// candidateSet is one affinity group's candidates, and why they are.
type candidateSet struct {
	members []placement.Cluster
	why     string
}

// candidateGroups are the candidates of each clusterAffinities group
// that selects a member that answers, in order (Karmada tries the next
// one when a group cannot be scheduled); one set without
// clusterAffinities.
func candidateGroups(members []placement.Cluster, p placementSpec) []candidateSet {
	members, filtered := spreadFilter(members, p.SpreadConstraints)
	if len(p.ClusterAffinities) == 0 {
		if p.ClusterAffinity == nil {
			return []candidateSet{{members, "no clusterAffinity: every member" + filtered}}
		}
		return []candidateSet{{matching(members, *p.ClusterAffinity), "clusterAffinity" + filtered}}
	}
	var out []candidateSet
	var skipped []string
	for _, term := range p.ClusterAffinities {
		var answering []placement.Cluster
		for _, m := range matching(members, term.clusterAffinity) {
			if !m.Unreachable {
				answering = append(answering, m)
			}
		}
		if len(answering) == 0 {
			skipped = append(skipped, fmt.Sprintf("%q", term.AffinityName))
			continue
		}
		why := fmt.Sprintf("clusterAffinities: group %q is the first that selects a member", term.AffinityName)
		if len(skipped) > 0 {
			why = fmt.Sprintf("clusterAffinities: group %q is the first that selects a member that answers (%s skipped)", term.AffinityName, strings.Join(skipped, ", "))
		}
		out = append(out, candidateSet{answering, why + filtered})
	}
	return out
}

// spreadFilter is Karmada's spreadconstraint filter plugin
// (pkg/scheduler/framework/plugins/spreadconstraint): a member without the
// property a constraint spreads by (provider, region, zones in the
// federation file) cannot be scheduled to, whatever the replica
// strategy. It returns the members left and, when some were dropped, a
// note for the candidates' why.
func spreadFilter(members []placement.Cluster, constraints []spreadConstraint) ([]placement.Cluster, string) {
	var dropped []string
	kept := slices.DeleteFunc(slices.Clone(members), func(m placement.Cluster) bool {
		for _, sc := range constraints {
			if sc.SpreadByLabel == "" && sc.SpreadByField != "cluster" && len(groupsOf(m, sc)) == 0 {
				dropped = append(dropped, fmt.Sprintf("%s (no %s)", m.Name, sc.SpreadByField))
				return true
			}
		}
		return false
	})
	if len(dropped) == 0 {
		return members, ""
	}
	return kept, "; spreadConstraints leave out " + strings.Join(dropped, ", ")
}

// spreadGroups checks the spread constraints Karmada's scheduler applies
// to Duplicated placements and to Divided ones with dynamic weights
// (pkg/scheduler/core/spreadconstraint): too few groups cannot be
// scheduled; more groups than maxGroups need the scheduler's scores to
// choose from, which only a running Karmada has. Static weights ignore
// spread constraints (shouldIgnoreSpreadConstraint), so callers skip this
// for them.
func spreadGroups(cands []placement.Cluster, constraints []spreadConstraint) error {
	for _, sc := range constraints {
		groups := map[string]bool{}
		what := sc.SpreadByField
		if sc.SpreadByLabel != "" {
			what = "label " + sc.SpreadByLabel
		}
		for _, c := range cands {
			for _, g := range groupsOf(c, sc) {
				groups[g] = true
			}
		}
		if sc.MinGroups > 0 && len(groups) < sc.MinGroups {
			return &unschedulableError{fmt.Errorf("spreadConstraints: %d %s group(s) among the candidates (%s), fewer than minGroups %d", len(groups), what, names(cands), sc.MinGroups)}
		}
		if sc.MaxGroups > 0 && len(groups) > sc.MaxGroups {
			return fmt.Errorf("spreadConstraints: %d %s groups among the candidates (%s) but maxGroups %d: Karmada's scheduler picks by cluster scores, which fedctl does not have; narrow the clusterAffinity to at most %d groups", len(groups), what, names(cands), sc.MaxGroups, sc.MaxGroups)
		}
	}
	return nil
}

func names(cs []placement.Cluster) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// staticWeights are each candidate's weight: the largest weight of the
// staticWeightList entries whose targetCluster matches it; candidates no
// entry matches take no part; when none matches at all, every candidate
// weighs 1 (pkg/scheduler/core/division_algorithm.go,
// getStaticWeightInfoList). No list means weight 1 each
// (getDefaultWeightPreference).
func staticWeights(cands []placement.Cluster, wp *weightPreference) map[string]int64 {
	w := map[string]int64{}
	if wp == nil || len(wp.StaticWeightList) == 0 {
		for _, c := range cands {
			w[c.Name] = 1
		}
		return w
	}
	var sum int64
	for _, c := range cands {
		var best int64
		for _, rule := range wp.StaticWeightList {
			if clusterMatches(c, rule.TargetCluster) && rule.Weight > best {
				best = rule.Weight
			}
		}
		if best > 0 {
			w[c.Name] = best
			sum += best
		}
	}
	if sum == 0 {
		for _, c := range cands {
			w[c.Name] = 1
		}
	}
	return w
}

// groupsOf are the groups member c is in for spread constraint sc: its
// name, region, provider, zones, or the value of the label; none when it
// lacks the property.
func groupsOf(c placement.Cluster, sc spreadConstraint) []string {
	switch {
	case sc.SpreadByLabel != "":
		if v, ok := c.Labels[sc.SpreadByLabel]; ok {
			return []string{v}
		}
	case sc.SpreadByField == "cluster":
		return []string{c.Name}
	case sc.SpreadByField == "region" && c.Region != "":
		return []string{c.Region}
	case sc.SpreadByField == "provider" && c.Provider != "":
		return []string{c.Provider}
	case sc.SpreadByField == "zone":
		return c.Zones
	}
	return nil
}
