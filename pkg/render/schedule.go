package render

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/planner"
)

// schedule applies every ReplicaSchedulingPreference to its target the way
// KubeFed's RSP controller rewrites the federated object
// (pkg/schedulingtypes/replicascheduler.go): placement becomes exactly the
// planned members, those planned 0 included, and each planned member gets a
// /spec/replicas override that beats the user's own and the template. It returns the rewritten copies by
// original object; the input is not modified.
func schedule(in Input, idx Index, res *Result) map[*federation.Object]*federation.Object {
	out := map[*federation.Object]*federation.Object{}
	for _, sc := range in.Set.Scheduled() {
		rsp, target := sc.RSP, sc.Target
		if target == nil {
			res.Warnings = append(res.Warnings, rsp.Errorf("metadata.name", "no %s %s/%s in the input; the preference is ignored", rsp.Spec.TargetKind, rsp.Namespace, rsp.Name))
			continue
		}
		if _, dup := out[target]; dup {
			res.Errors = append(res.Errors, &TargetError{Object: target, Err: rsp.Errorf("metadata.name", "a second ReplicaSchedulingPreference for %s", target.ID())})
			continue
		}
		pm, err := PlanMembers(idx, in.Members, in.Live, rsp, target)
		switch {
		case err != nil && rsp.Spec.IntersectWithClusterSelector:
			// A selector that cannot be read fails KubeFed's scheduler,
			// which then writes nothing: the target keeps its own
			// placement (its clusters list, which ignores the selector,
			// or the selector, which fails it there too).
			res.Warnings = append(res.Warnings, rsp.Errorf("spec.intersectWithClusterSelector", "%s", SchedulerFailsText(err, target)))
			continue
		case err != nil:
			res.fail("", target, err)
			continue
		case len(pm.Considered) == 0:
			// KubeFed's scheduler does nothing without clusters; the
			// target is placed by its own placement (a dialect's policy
			// that selects no member: nowhere)
			continue
		case len(pm.Clusters) == 0:
			if pm.Kept != nil {
				out[target], _ = WithPlan(target, pm.Kept)
			}
			res.Warnings = append(res.Warnings, rsp.Errorf("", "%s", pm.NoMemberText(target, in.Members, in.Live)))
			continue
		}
		if pm.Stranded != nil {
			res.Warnings = append(res.Warnings, rsp.Errorf("", "%s: planned over the other members, as the migrations there send %s to members that cannot take a share now; uncordon the destination, or migrate those objects elsewhere (fedctl migrate)", pm.StrandedText(in.Members, in.Live), target.ID()))
		}
		if unread := in.Live.Unread(target, pm.Clusters); len(unread) > 0 {
			kept := KeptAsWritten(in.Live, target, pm.Clusters, unread)
			out[target], _ = WithUnread(target, kept, unread)
			res.Warnings = append(res.Warnings, rsp.Errorf("", "%s", UnreadText(target, kept, unread)))
			continue
		}
		clusters := pm.Clusters
		current, capacity := in.Live.For(target, clusters)
		plan, err := planner.Schedule(rsp.Spec, clusters, planner.Key(rsp.Namespace, rsp.Name), current, capacity)
		if err != nil {
			res.Errors = append(res.Errors, &TargetError{Object: target, Err: rsp.Errorf("spec", "%v", err)})
			continue
		}
		if in.Live != nil {
			if moved := failover(rsp, pm.Uncordoned, clusters, in.Live, plan); moved != nil {
				res.Warnings = append(res.Warnings, moved)
			}
		}
		if idx.Migrations {
			// fedctl migrate moves a member's share to another after planning.
			plan, _ = placement.MigratedPlan(plan, target.Labels, in.Members)
		}
		out[target], _ = WithPlan(target, plan)
	}
	return out
}

// StrandedText says which members' shares migrations strand, and why
// ("cluster1 (migrated to cluster2, cordoned)"); "" when none.
func (pm MemberPlanning) StrandedText(members []placement.Cluster, live *Live) string {
	var parts []string
	for _, from := range slices.Sorted(maps.Keys(pm.Stranded)) {
		to := pm.Stranded[from]
		why := "did not answer"
		if i := slices.IndexFunc(members, func(m placement.Cluster) bool { return m.Name == to }); i < 0 {
			why = "not a member"
		} else if members[i].Cordoned {
			why = "cordoned"
		} else if reason := live.Reason(to); reason != "" {
			why += ": " + reason
		}
		parts = append(parts, fmt.Sprintf("%s (migrated to %s, %s)", from, to, why))
	}
	return strings.Join(parts, ", ")
}

// SchedulerFailsText says what becomes of target when its RSP's
// intersectWithClusterSelector meets a selector that cannot be read (err),
// for render's warning and explain's report alike.
func SchedulerFailsText(err error, target *federation.Object) string {
	return fmt.Sprintf("plans nothing, as KubeFed's scheduler fails: %v; %s keeps its own placement and replicas", err, target.ID())
}

// NoMemberText says, when Clusters is empty while Considered is not, why
// and what becomes of target, in the words of render's warning and of
// explain's report alike.
func (pm MemberPlanning) NoMemberText(target *federation.Object, members []placement.Cluster, live *Live) string {
	why := "every member it considers is cordoned or did not answer"
	if pm.Stranded != nil {
		why += ", or migrates it to one that cannot take a share: " + pm.StrandedText(members, live)
	}
	if pm.Kept != nil {
		return fmt.Sprintf("no member to plan over (%s): the replicas are kept as they run (%s)", why, PlanText(pm.Kept))
	}
	return fmt.Sprintf("no member to plan over (%s): %s is rendered from its own placement and template", why, target.ID())
}

// MemberPlanning is what a replica plan of one RSP considers, as schedule
// decides it (and explain shows it).
type MemberPlanning struct {
	// Considered are the members the preference considers: every one, or
	// with intersectWithClusterSelector selectorClusters, and a dialect's
	// Considered; none: no plan, the target is placed by its own
	// placement.
	Considered []string
	// Uncordoned are the members not cordoned (fedctl cordon): no
	// cordoned member gets a share of any plan.
	Uncordoned []string
	// Clusters are those a plan uses now: the Considered not cordoned that
	// answered
	// (KubeFed plans over ready clusters only), unless --no-failover.
	Clusters []string
	// Kept, when Clusters is empty but Considered is not, are the
	// replicas kept as they run (keptAsTheyRun): KubeFed's scheduler
	// leaves the object with the plan last written.
	Kept map[string]int64
	// Stranded are the members left out of Clusters because migrations
	// send the target off them to a member that is cordoned or did not
	// answer (placement.Stranded), each with that member: their shares are
	// planned over the others.
	Stranded map[string]string
	// NoNamespace says intersectWithClusterSelector found no
	// FederatedNamespace for the target (Considered is then empty).
	NoNamespace bool
}

// PlanMembers decides the members a replica plan of rsp for target
// considers and uses; an error is a selector that cannot be read. idx
// (IndexOf) is built once by the caller rather than once per preference.
func PlanMembers(idx Index, members []placement.Cluster, live *Live, rsp *federation.ReplicaSchedulingPreference, target *federation.Object) (MemberPlanning, error) {
	var pm MemberPlanning
	pm.Considered = make([]string, 0, len(members))
	for _, m := range members {
		pm.Considered = append(pm.Considered, m.Name)
		if !m.Cordoned {
			pm.Uncordoned = append(pm.Uncordoned, m.Name)
		}
	}
	if rsp.Spec.IntersectWithClusterSelector {
		selected, ok, err := selectorClusters(idx.Namespaces, members, target)
		if err != nil {
			return pm, err
		}
		pm.NoNamespace = !ok
		pm.Considered = placement.Intersect(pm.Considered, selected)
	}
	if rsp.Spec.Considered != nil {
		pm.Considered = placement.Intersect(pm.Considered, rsp.Spec.Considered)
	}
	if len(pm.Considered) == 0 {
		return pm, nil
	}
	pm.Clusters = placement.Intersect(pm.Considered, pm.Uncordoned)
	failover := live != nil && !live.KeepShares
	if failover {
		// a member that does not answer loses its share to those that do
		pm.Clusters = placement.Intersect(pm.Clusters, live.Answering)
	}
	if idx.Migrations {
		// A share a migration sends to a member that cannot take it would
		// go to a cordoned member, or be lost with one that does not
		// answer.
		available := pm.Uncordoned
		if failover {
			available = placement.Intersect(available, live.Answering)
		}
		if pm.Stranded = placement.Stranded(pm.Clusters, target.Labels, members, available); pm.Stranded != nil {
			pm.Clusters = slices.DeleteFunc(slices.Clone(pm.Clusters), func(c string) bool { return pm.Stranded[c] != "" })
		}
	}
	if len(pm.Clusters) == 0 {
		if kept := keptAsTheyRun(live, members, target); len(kept) > 0 {
			pm.Kept = kept
		}
	}
	return pm, nil
}

// selectorClusters are the members an RSP with intersectWithClusterSelector
// plans over (before cordons and answers), as KubeFed's
// ComputeNamespacedPlacement(selectorOnly=true) gives them: those the
// target's clusterSelector selects (its clusters list ignored), within
// where the FederatedNamespace's clusterSelector goes (selectorOnly there
// too: its clusters list is ignored as well). Without that
// FederatedNamespace KubeFed fails, and the target is placed nowhere
// anyway (NamespaceNotFederated), so ok is false (no plan), unless the
// federation is namespace-scoped, where the selector alone counts.
func selectorClusters(namespaces map[string]*federation.Object, members []placement.Cluster, target *federation.Object) (clusters []string, ok bool, err error) {
	sel, err := placement.SelectBySelector(target.Spec.Placement, members)
	if err != nil {
		return nil, false, err
	}
	ns, found := namespaces[target.Namespace]
	switch {
	case found:
		// selectorOnly for the namespace too (ComputeNamespacedPlacement
		// passes it on)
		nsSel, err := placement.SelectBySelector(ns.Spec.Placement, members)
		if err != nil {
			return nil, false, fmt.Errorf("placement of FederatedNamespace %s: %w", target.Namespace, err)
		}
		return placement.Intersect(sel.Clusters, nsSel.Clusters), true, nil
	case target.Rules.NamespaceOptional:
		return sel.Clusters, true, nil
	}
	return nil, false, nil
}

// keptAsTheyRun are the replicas an RSP target keeps when no member is
// left to plan over: the spec.replicas fedctl's object has in each member
// that holds it, cordoned or not (what was last written, not how many are
// ready: a member mid-rollout is not scaled down); nil without a live
// read.
func keptAsTheyRun(live *Live, members []placement.Cluster, target *federation.Object) map[string]int64 {
	if live == nil {
		return nil
	}
	all := make([]string, len(members))
	for i, m := range members {
		all[i] = m.Name
	}
	return only(live.Replicas[target.TargetKey()].Spec, all)
}

// KeptAsWritten is the plan of a target whose replica state could not be
// read in some of the members it is planned over (unread): KubeFed's
// scheduler then fails for the preference and writes nothing, so the
// federated object keeps its last plan while its template still syncs
// (pkg/schedulingtypes/replicascheduler.go, clustersReplicaState). With
// no control plane to hold that plan, what each member read was last
// given (its spec.replicas) is kept; the unread members are not in it.
// Replicas never move on a failed read.
func KeptAsWritten(live *Live, target *federation.Object, clusters []string, unread map[string]string) map[string]int64 {
	kept := map[string]int64{}
	for m, n := range live.Replicas[target.TargetKey()].Spec {
		if slices.Contains(clusters, m) && unread[m] == "" {
			kept[m] = n
		}
	}
	return kept
}

// WithUnread is target placed in the members of kept, with their
// replicas, and in the unread ones, where it fails (UnreadStateError):
// nothing is written to them for it, and nothing removed. The origins are
// WithPlan's.
func WithUnread(target *federation.Object, kept map[string]int64, unread map[string]string) (*federation.Object, [][]OverrideOrigin) {
	plan := maps.Clone(kept)
	for m := range unread {
		plan[m] = 0 // placed, so not removed; failed below, so not sent
	}
	eff, origins := WithPlan(target, plan)
	eff.MemberErrors = maps.Clone(target.MemberErrors)
	if eff.MemberErrors == nil {
		eff.MemberErrors = map[string]error{}
	}
	for m, why := range unread {
		eff.MemberErrors[m] = &UnreadStateError{Why: why}
	}
	return eff, origins
}

// UnreadStateError fails a planned object in a member where its replica
// state could not be read (WithUnread): nothing is sent there for it. It
// is no fault of the input; status calls it RetrievalFailed.
type UnreadStateError struct{ Why string }

func (e *UnreadStateError) Error() string {
	return fmt.Sprintf("not sent: its replica state could not be read for the plan (%s), and replicas never move on a failed read; the next apply plans it again", e.Why)
}

// UnreadText says what KeptAsWritten decided, for the preference's warning.
func UnreadText(target *federation.Object, kept map[string]int64, unread map[string]string) string {
	var whys []string
	for _, m := range slices.Sorted(maps.Keys(unread)) {
		whys = append(whys, m+" ("+unread[m]+")")
	}
	keptText := "nowhere"
	if len(kept) > 0 {
		keptText = PlanText(kept)
	}
	return fmt.Sprintf("the replica state of %s could not be read in %s: not planned, as KubeFed's scheduler plans nothing for a preference whose clusters it cannot read; the members read keep their replicas (%s), and nothing is sent to %s for it",
		target.ID(), strings.Join(whys, "; "), keptText, strings.Join(slices.Sorted(maps.Keys(unread)), ", "))
}

// PlanText is a plan as "a 3, b 2", by member name.
func PlanText(plan map[string]int64) string {
	var parts []string
	for _, m := range sortedKeys(plan) {
		parts = append(parts, fmt.Sprintf("%s %d", m, plan[m]))
	}
	return strings.Join(parts, ", ")
}

// OverrideOrigin says where one override of WithPlan's result comes from:
// Index and Item locate it in the federated object's own spec.overrides,
// or are -1 for one the plan added; Replaced is the user's value of a
// /spec/replicas override that the plan rewrote. fedctl explain shows it.
type OverrideOrigin struct {
	Index, Item int
	Replaced    json.RawMessage
}

// Added says whether the plan added the override.
func (o OverrideOrigin) Added() bool { return o.Index < 0 }

// WithPlan returns a copy of o placed in the planned members with their
// replica counts as overrides, as KubeFed's updateOverridesMap writes them:
// an existing /spec/replicas item keeps its place and gets the new value,
// otherwise one is appended; members that are not planned lose theirs. An
// entry with a clusterSelector (fedctl's) names no member, so it loses its
// /spec/replicas items too: the plan owns the replicas of every member.
// The origins parallel the copy's overrides item by item.
func WithPlan(o *federation.Object, plan map[string]int64) (*federation.Object, [][]OverrideOrigin) {
	eff := *o
	clusters := make([]federation.ClusterRef, 0, len(plan))
	for _, name := range sortedKeys(plan) {
		clusters = append(clusters, federation.ClusterRef{Name: name})
	}
	eff.Spec.Placement = federation.Placement{Clusters: clusters, ClusterSelector: o.Spec.Placement.ClusterSelector}

	ovs := make([]federation.ClusterOverrides, 0, len(o.Spec.Overrides)+len(plan))
	origins := make([][]OverrideOrigin, 0, cap(ovs))
	added := OverrideOrigin{Index: -1, Item: -1}
	done := map[string]bool{}
	for i, co := range o.Spec.Overrides {
		n, planned := plan[co.ClusterName]
		items := make([]federation.Override, 0, len(co.ClusterOverrides)+1)
		from := make([]OverrideOrigin, 0, cap(items))
		found := false
		for k, item := range co.ClusterOverrides {
			org := OverrideOrigin{Index: i, Item: k}
			if item.Path == replicasPath {
				if !planned {
					continue
				}
				org.Replaced = item.Value
				item.Value = replicasValue(n)
				found = true
			}
			items = append(items, item)
			from = append(from, org)
		}
		if planned && !found {
			items = append(items, federation.Override{Path: replicasPath, Value: replicasValue(n)})
			from = append(from, added)
		}
		if co.ClusterName != "" {
			done[co.ClusterName] = true
		}
		ovs = append(ovs, federation.ClusterOverrides{ClusterName: co.ClusterName, ClusterSelector: co.ClusterSelector, ClusterOverrides: items, Containers: co.Containers})
		origins = append(origins, from)
	}
	for _, name := range sortedKeys(plan) {
		if !done[name] {
			ovs = append(ovs, federation.ClusterOverrides{ClusterName: name, ClusterOverrides: []federation.Override{{Path: replicasPath, Value: replicasValue(plan[name])}}})
			origins = append(origins, []OverrideOrigin{added})
		}
	}
	eff.Spec.Overrides = ovs
	return &eff, origins
}

func replicasValue(n int64) json.RawMessage {
	return json.RawMessage(strconv.FormatInt(n, 10))
}

func sortedKeys(m map[string]int64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Live is what the members said, for plans made the way KubeFed's
// controller makes them from live state; nil plans from the manifests
// alone, as render does offline.
type Live struct {
	// Answering are the members that answered. A replica plan considers
	// only these unless KeepShares (--no-failover).
	Answering  []string
	KeepShares bool
	// Why says, per member that did not answer, why: its health, or why
	// its replica state could not be read.
	Why map[string]string
	// Replicas are, per RSP target (federation.Object.TargetKey), each member's current
	// replicas and estimated capacity.
	Replicas map[string]LiveReplicas
}

// LiveReplicas are one target's live figures by member: current replicas
// for every member that has the object, and an estimated capacity for
// those whose pods cannot all be scheduled.
type LiveReplicas struct {
	Current  map[string]int64
	Capacity map[string]int64
	// Spec is each member's spec.replicas, what was last written there.
	Spec map[string]int64
	// Unread are the members that answered but where this target's state
	// could not be read (its GET or its pods' LIST failed), with why: the
	// target is not planned (KeptAsWritten), the members stay answering
	// for everything else, as KubeFed fails only that preference.
	Unread map[string]string
}

// Unread are the members of clusters where target's replica state could
// not be read, with why; nil without a live read.
func (l *Live) Unread(target *federation.Object, clusters []string) map[string]string {
	if l == nil {
		return nil
	}
	var out map[string]string
	for m, why := range l.Replicas[target.TargetKey()].Unread {
		if slices.Contains(clusters, m) {
			if out == nil {
				out = map[string]string{}
			}
			out[m] = why
		}
	}
	return out
}

// Reason is why member did not answer, "" when the read did not say.
func (l *Live) Reason(member string) string {
	if l == nil {
		return ""
	}
	return l.Why[member]
}

// For are target's live current replicas and capacities of the clusters a
// plan considers, nil without a live read. KubeFed reads those of the
// clusters it plans over only: a cordoned member's running replicas
// neither count nor get a 0 written there.
func (l *Live) For(target *federation.Object, clusters []string) (current, capacity map[string]int64) {
	if l == nil {
		return nil, nil
	}
	r := l.Replicas[target.TargetKey()]
	return only(r.Current, clusters), only(r.Capacity, clusters)
}

// failover says, at the preference's line, which members did not answer
// and so got no share of the plan, and where the replicas went instead;
// nil when every member answered.
func failover(rsp *federation.ReplicaSchedulingPreference, all, considered []string, live *Live, plan map[string]int64) *manifest.Error {
	var down []string
	for _, m := range all {
		if !slices.Contains(live.Answering, m) {
			down = append(down, m)
		}
	}
	if len(down) == 0 {
		return nil
	}
	if live.KeepShares {
		return rsp.Errorf("", "%s did not answer; --no-failover keeps their share of the plan", strings.Join(down, ", "))
	}
	var parts []string
	for _, m := range considered {
		parts = append(parts, fmt.Sprintf("%s %d", m, plan[m]))
	}
	return rsp.Errorf("", "%s did not answer: planned over the members that did, as KubeFed plans over ready clusters (%s); the next apply after they answer plans over them again (--no-failover keeps their share)",
		strings.Join(down, ", "), strings.Join(parts, ", "))
}

// only is m limited to the keys in names (nil stays nil).
func only(m map[string]int64, names []string) map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		if slices.Contains(names, k) {
			out[k] = v
		}
	}
	return out
}
