package explain

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/planner"
	"github.com/fedctl/fedctl/pkg/render"
)

// scheduled is what a ReplicaSchedulingPreference did to its target.
type scheduled struct {
	info *Scheduling
	// eff is the target as the preference rewrote it, nil when it did not.
	eff *federation.Object
	// origins[i][k] is where item k of eff's spec.overrides[i] comes from.
	origins [][]origin
	// plan is the replicas per cluster written as overrides.
	plan map[string]int64
	errs []error
}

type origin struct {
	from      string
	field     string // in the federated object; "" for an added override
	userValue json.RawMessage
}

// schedule applies every ReplicaSchedulingPreference to its target as
// render does: the first preference for a target plans; a second is an
// error; placement becomes the planned members and /spec/replicas
// overrides carry the plan.
func schedule(set *federation.Set, members []placement.Cluster, live *render.Live) map[*federation.Object]*scheduled {
	out := map[*federation.Object]*scheduled{}
	idx := render.IndexOf(set, set.Namespaces(), members)
	for _, sc := range set.Scheduled() {
		rsp, target := sc.RSP, sc.Target
		if target == nil {
			continue // render warns
		}
		if s, dup := out[target]; dup {
			s.errs = append(s.errs, rsp.Errorf("metadata.name", "a second ReplicaSchedulingPreference for %s", target.ID()))
			continue
		}
		s := &scheduled{info: &Scheduling{
			Preference: rsp.ID(), Source: source(rsp.Pos.File(), rsp.Pos.Line("")),
			TotalReplicas: rsp.Spec.TotalReplicas, Rebalance: rsp.Spec.Rebalance,
			Key: planner.Key(rsp.Namespace, rsp.Name), IntersectWithClusterSelector: rsp.Spec.IntersectWithClusterSelector,
			Considered: []string{},
		}}
		out[target] = s
		s.info.Preferences = preferences(rsp.Spec.Clusters)
		// what render decides, shown
		pm, err := render.PlanMembers(idx, members, live, rsp, target)
		s.info.Stranded = pm.StrandedText(members, live)
		if live != nil {
			lr := live.Replicas[target.TargetKey()]
			s.info.Live = &LiveFigures{Current: replicas(lr.Current), Capacity: replicas(lr.Capacity), KeepShares: live.KeepShares}
			for _, n := range pm.Uncordoned {
				if !slices.Contains(live.Answering, n) {
					s.info.Live.NotAnswering = append(s.info.Live.NotAnswering, n)
				}
			}
		}
		if rsp.Spec.IntersectWithClusterSelector {
			sel := explainSelection(target.Spec.Placement, members, true)
			s.info.Selector = &sel
			if sel.Error != "" {
				s.info.Error = "clusterSelector of " + target.ID() + ": " + sel.Error
			}
		}
		switch {
		case err != nil && rsp.Spec.IntersectWithClusterSelector:
			// as render: KubeFed's scheduler fails and writes nothing
			s.info.Skipped = render.SchedulerFailsText(err, target)
			continue
		case err != nil:
			if s.info.Error == "" {
				s.info.Error = err.Error()
			}
			s.errs = append(s.errs, positioned(target, err)...)
			continue
		case pm.NoNamespace:
			s.info.Skipped = "no FederatedNamespace " + target.Namespace + " in the input: KubeFed plans nothing, and the object is placed nowhere"
			continue
		case len(pm.Considered) == 0 && rsp.Spec.IntersectWithClusterSelector:
			s.info.Skipped = "no clusters to plan for (intersectWithClusterSelector: the clusterSelectors of the target and of its FederatedNamespace select no member in common; clusters lists are ignored): KubeFed's scheduler does nothing, and the object is placed by its own placement"
			continue
		case len(pm.Considered) == 0:
			s.info.Skipped = "no clusters to plan for: KubeFed's scheduler does nothing, and the object is placed by its own placement"
			continue
		case len(pm.Clusters) == 0:
			// considered, and none of them left to plan over: render's
			// warning says why
			s.info.Considered = slices.Clone(pm.Considered)
			s.info.Skipped = pm.NoMemberText(target, members, live)
			if pm.Kept != nil {
				s.plan, s.info.Plan = pm.Kept, replicas(pm.Kept)
				s.eff, s.origins = withPlan(target, pm.Kept)
			}
			continue
		}
		if unread := live.Unread(target, pm.Clusters); len(unread) > 0 {
			// as render: not planned, the members read keep their replicas
			kept := render.KeptAsWritten(live, target, pm.Clusters, unread)
			s.info.Considered = slices.Clone(pm.Clusters)
			s.info.Skipped = render.UnreadText(target, kept, unread)
			s.plan, s.info.Plan = kept, replicas(kept)
			eff, from := render.WithUnread(target, kept, unread)
			s.eff, s.origins = eff, originsOf(from)
			continue
		}
		clusters := pm.Clusters
		s.info.Considered = slices.Clone(clusters)
		current, capacity := live.For(target, clusters)
		tr, err := planner.ScheduleTrace(rsp.Spec, clusters, s.info.Key, current, capacity)
		if err != nil {
			s.info.Error = err.Error()
			s.errs = append(s.errs, rsp.Errorf("spec", "%v", err))
			continue
		}
		s.info.Defaulted = tr.Defaulted
		s.info.Preferences = preferences(tr.Spec.Clusters)
		s.info.Steps = steps(tr.Steps)
		s.info.Plan = replicas(tr.Scheduled)
		s.info.Overflow = replicas(tr.Result.Overflow)
		if n := len(tr.Steps); n > 0 && tr.Steps[n-1].Kind == planner.StepDone {
			s.info.Unplaced = tr.Steps[n-1].Remaining
		}
		var moved []placement.Moved
		s.plan, moved = placement.MigratedPlan(tr.Scheduled, target.Labels, members)
		if len(moved) > 0 {
			s.info.Migrated = migratedReport(moved)
			s.info.Plan = replicas(s.plan)
		}
		s.eff, s.origins = withPlan(target, s.plan)
		if s.info.Live != nil {
			// What the manifests alone would plan (render without
			// --live), for the comparison.
			if offPM, err := render.PlanMembers(idx, members, nil, rsp, target); err == nil && len(offPM.Clusters) > 0 {
				if offline, err := planner.Schedule(rsp.Spec, offPM.Clusters, s.info.Key, nil, nil); err == nil {
					offline, _ = placement.MigratedPlan(offline, target.Labels, members)
					s.info.Live.OfflinePlan = replicas(offline)
				}
			}
		}
	}
	return out
}

func preferences(prefs map[string]federation.ClusterPreferences) []Preference {
	out := []Preference{}
	for _, k := range slices.Sorted(maps.Keys(prefs)) {
		p := prefs[k]
		out = append(out, Preference{Cluster: k, MinReplicas: p.MinReplicas, MaxReplicas: p.MaxReplicas, Weight: p.Weight})
	}
	return out
}

func replicas(m map[string]int64) []Replicas {
	var out []Replicas
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Replicas{Cluster: k, Replicas: m[k]})
	}
	return out
}

func steps(in []planner.Step) []Step {
	out := make([]Step, 0, len(in))
	position := 0
	minimums := map[string]int64{}
	for _, s := range in {
		v := func(x int64) *int64 { return &x }
		st := Step{Kind: string(s.Kind), Cluster: s.Cluster}
		switch s.Kind {
		case planner.StepOrdered:
			position++
			st.Position, st.Preference = position, s.Preference
			st.MinReplicas, st.MaxReplicas, st.Weight = v(s.MinReplicas), s.MaxReplicas, v(s.Weight)
			st.Hash = fmt.Sprintf("0x%08x", s.Hash)
			minimums[s.Cluster] = s.MinReplicas
		case planner.StepMinimum:
			st.MinReplicas = v(minimums[s.Cluster]) // from the cluster's ordered step
			st.Replicas, st.Total, st.Remaining = v(s.Replicas), v(s.Total), v(s.Remaining)
		case planner.StepPreallocated:
			st.Replicas, st.Total, st.Remaining = v(s.Replicas), v(s.Total), v(s.Remaining)
		case planner.StepPass:
			st.Pass, st.WeightSum, st.Distribute, st.Remaining = s.Pass, v(s.WeightSum), v(s.Distribute), v(s.Remaining)
		case planner.StepShare:
			st.Pass, st.Weight, st.WeightSum, st.Distribute = s.Pass, v(s.Weight), v(s.WeightSum), v(s.Distribute)
			st.Share, st.Offered, st.UsedPreallocated = v(s.Share), v(s.Offered), v(s.UsedPrealloc)
			st.Replicas, st.Total, st.Remaining = v(s.Replicas), v(s.Total), v(s.Remaining)
			st.CappedByMax, st.CappedByCapacity, st.Full = s.CappedByMax, s.CappedByCapacity, s.Full
			if s.CappedByCapacity {
				st.Overflow = v(s.Overflow)
			}
		case planner.StepOverflow:
			st.Overflow, st.Remaining = v(s.Overflow), v(s.Remaining)
		case planner.StepDone:
			st.Remaining = v(s.Remaining)
		}
		out = append(out, st)
	}
	return out
}

// withPlan is render's rewrite of a target by its plan (KubeFed's
// updateOverridesMap), with where each resulting override comes from.
func withPlan(o *federation.Object, plan map[string]int64) (*federation.Object, [][]origin) {
	eff, from := render.WithPlan(o, plan)
	return eff, originsOf(from)
}

// originsOf says where each override of render's rewrite comes from.
func originsOf(from [][]render.OverrideOrigin) [][]origin {
	origins := make([][]origin, len(from))
	for i, items := range from {
		for _, f := range items {
			org := origin{from: FromPreference}
			if !f.Added() {
				org = origin{from: FromOverrides, field: itemField(f.Index, f.Item)}
				if f.Replaced != nil {
					org.from, org.userValue = FromOverridesSetByPreference, f.Replaced
				}
			}
			origins[i] = append(origins[i], org)
		}
	}
	return origins
}

func itemField(i, k int) string { return fmt.Sprintf("spec.overrides[%d].clusterOverrides[%d]", i, k) }

// identity is where the overrides of an object that no preference
// rewrote come from: each from its own place.
func identity(ovs []federation.ClusterOverrides) [][]origin {
	out := make([][]origin, len(ovs))
	for i, co := range ovs {
		for k, ov := range co.ClusterOverrides {
			field := itemField(i, k)
			if ov.Source != "" { // compiled by a dialect: name what it came from
				field = ov.Source
			}
			out[i] = append(out[i], origin{from: FromOverrides, field: field})
		}
	}
	return out
}
