package karmada

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
)

// irrelevantMetadata is what Karmada removes from a resource template
// before it sends it to members
// (pkg/resourceinterpreter/default/native/prune/prune.go,
// RemoveIrrelevantFields). The uid is also the division's tie-break key,
// read before it is removed.
var irrelevantMetadata = []string{"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation",
	"managedFields", "resourceVersion", "selfLink", "uid", "ownerReferences", "finalizers"}

// compile turns one resource template into a federated object: the chosen
// policy's members, each one's replicas and overrides. It returns nil and
// a warning for an object Karmada would leave alone.
func (ps *policySet) compile(in dialect.Input, p plain) (*federation.Object, *manifest.Error, error) {
	errorf := func(field, format string, args ...any) *manifest.Error {
		e := p.pos.Errorf(field, format, args...)
		e.Object = p.head.ID()
		return e
	}
	if systemNamespace(p.r.Namespace) {
		return nil, errorf("metadata.namespace", "ignored: Karmada never propagates objects in %s", p.r.Namespace), nil
	}
	var notes []string
	isNamespace := p.head.APIVersion == "v1" && p.head.Kind == "Namespace"
	chosen, implicit, others := (*propagationPolicy)(nil), mismatch, []*propagationPolicy(nil)
	if p.r.Namespace != "" {
		chosen, implicit, others = highestPriority(p.r, ps.propagation[p.r.Namespace])
	}
	var beaten []*propagationPolicy
	if chosen == nil {
		chosen, implicit, others = highestPriority(p.r, ps.clusterPropagation)
	} else if c, _, rest := highestPriority(p.r, ps.clusterPropagation); c != nil {
		beaten = append(rest, c)
	}

	synced := isNamespace && namespaceSynced(p)
	var members []placement.Cluster
	var counts, completions map[string]int32 // per member; nil: the template's
	var field string
	switch {
	case synced:
		members = in.Members
		notes = append(notes, "Karmada's namespace sync sends a Namespace to every member")
		if chosen != nil {
			notes = append(notes, fmt.Sprintf("%s also selects it; the namespace sync places it on every member regardless", policyID(chosen)))
		}
	case chosen == nil:
		if isNamespace {
			return nil, errorf("", "not propagated: Karmada does not sync %s and no ClusterPropagationPolicy selects it", namespaceSkipReason(p)), nil
		}
		return nil, nil, errorf("", "no PropagationPolicy (in namespace %q) or ClusterPropagationPolicy selects it, so it would go nowhere; check the policies' resourceSelectors (apiVersion %s, kind %s, name, labelSelector)", p.r.Namespace, p.r.APIVersion, p.r.Kind)
	default:
		notes = append(notes, choiceNote(chosen, implicit, others, beaten))
		var err error
		members, counts, field, notes, err = schedule(in.Members, chosen, p, notes)
		if err != nil {
			// at the policy's field that decides, naming the template
			at := "spec.placement"
			var fe *fieldError
			if errors.As(err, &fe) {
				at = fe.field
			}
			e := chosen.pos.Errorf(at, "%v (scheduling %s, %s:%d)", err, p.head.ID(), p.pos.File(), p.pos.Line(""))
			e.Object = policyID(chosen)
			return nil, nil, e
		}
		completions, notes = jobCompletions(p, chosen, counts, notes)
	}

	meta := p.obj["metadata"].(map[string]any)
	tmpl := federation.Template{}
	for k, v := range p.obj {
		if k != "apiVersion" && k != "kind" && k != "status" {
			tmpl[k] = v
		}
	}
	cleanMeta := map[string]any{}
	for k, v := range meta {
		if k != "name" && k != "namespace" && !slices.Contains(irrelevantMetadata, k) {
			cleanMeta[k] = v
		}
	}
	if len(cleanMeta) > 0 {
		tmpl["metadata"] = cleanMeta
	} else {
		delete(tmpl, "metadata")
	}
	tmpl = pruned(p.head.Kind, p.r.Name, tmpl)

	obj := &federation.Object{
		TypeMeta:   metav1.TypeMeta{APIVersion: federation.TypesGroup + "/" + federation.TypesVersion, Kind: federation.KindPrefix + p.head.Kind},
		ObjectMeta: metav1.ObjectMeta{Name: p.r.Name, Namespace: p.r.Namespace},
		Pos:        p.pos,
		Origin:     federation.Origin{Dialect: Dialect{}.Name(), Doc: p.doc},
		Rules: federation.Rules{KeepAnnotations: true, NamespaceOptional: true,
			ByReachability: chosen != nil && !synced && len(chosen.Spec.Placement.ClusterAffinities) > 1},
	}
	if isNamespace {
		obj.Namespace = p.r.Name
	}
	if len(p.r.Labels) > 0 {
		obj.Labels = p.r.Labels
	}
	if chosen != nil && chosen.Spec.PreserveResourcesOnDeletion != nil && *chosen.Spec.PreserveResourcesOnDeletion {
		// fedctl delete then leaves the member objects, as Karmada does
		// when the template is deleted; KubeFed's orphan also leaves
		// those of a member that leaves the placement, where Karmada
		// deletes them.
		obj.Annotations = map[string]string{federation.OrphanAnnotation: "true"}
		notes = append(notes, fmt.Sprintf("preserveResourcesOnDeletion (%s): member objects are left, not deleted, by fedctl delete (as %s: \"true\", which also leaves those of a member that leaves the placement)", policyID(chosen), federation.OrphanAnnotation))
	}
	obj.Spec.Template = tmpl
	obj.Spec.Placement.Clusters = []federation.ClusterRef{}
	selected := ps.selectedOverridePolicies(p, isNamespace)
	for _, m := range members {
		obj.Spec.Placement.Clusters = append(obj.Spec.Placement.Clusters, federation.ClusterRef{Name: m.Name})
		base := baseObject(tmpl, p)
		a := &applier{obj: base, kind: p.head.Kind}
		if err := ps.memberOverrides(a, selected, m, counts, completions, field); err != nil {
			if obj.MemberErrors == nil {
				obj.MemberErrors = map[string]error{}
			}
			obj.MemberErrors[m.Name] = fmt.Errorf("cluster %s: %w", m.Name, err)
			continue
		}
		if len(a.ops) == 0 {
			continue
		}
		entry := federation.ClusterOverrides{ClusterName: m.Name}
		for _, o := range folded(a.ops) {
			ov, err := o.override()
			if err != nil {
				return nil, nil, errorf("", "%s: %v", o.Source, err)
			}
			entry.ClusterOverrides = append(entry.ClusterOverrides, ov)
		}
		obj.Spec.Overrides = append(obj.Spec.Overrides, entry)
	}
	obj.Notes = notes
	return obj, nil, nil
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// baseObject is the member object before replicas and overrides, as
// render.BaseObject makes it for an object that keeps its annotations:
// operations compiled against it apply the same way there.
func baseObject(tmpl federation.Template, p plain) map[string]any {
	obj := deepCopy(map[string]any(tmpl)).(map[string]any)
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	meta["name"] = p.r.Name
	if p.t.Namespaced() {
		meta["namespace"] = p.r.Namespace
	}
	obj["kind"] = p.t.Kind
	obj["apiVersion"] = p.t.APIVersion()
	return obj
}

// namespaceSynced says whether Karmada's namespace sync controller sends a
// Namespace to every member (pkg/controllers/namespace/
// namespace_sync_controller.go): not default, kube-*, Karmada's reserved
// namespaces, nor one labelled to skip it.
func namespaceSynced(p plain) bool {
	return namespaceSkipReason(p) == ""
}

func namespaceSkipReason(p plain) string {
	switch name := p.r.Name; {
	case name == "default":
		return "the default namespace"
	case systemNamespace(name):
		return "system namespace " + name
	case strings.EqualFold(p.r.Labels[SkipAutoPropagationLabel], "true"):
		return "a Namespace labelled " + SkipAutoPropagationLabel + "=true"
	}
	return ""
}

func policyID(p *propagationPolicy) string {
	if p.Namespace == "" {
		return ClusterPropagationPolicyKind + " " + p.Name
	}
	return PropagationPolicyKind + " " + p.Namespace + "/" + p.Name
}

func choiceNote(chosen *propagationPolicy, implicit implicitPriority, others, beaten []*propagationPolicy) string {
	var b strings.Builder
	fmt.Fprintf(&b, "selected by %s (priority %d, %s)", policyID(chosen), chosen.explicitPriority(), implicit)
	if len(others) > 0 {
		var names []string
		for _, o := range others {
			names = append(names, fmt.Sprintf("%s (priority %d)", policyID(o), o.explicitPriority()))
		}
		fmt.Fprintf(&b, "; it beats %s: higher priority first, then name match > label selector > match-all, then the smaller name", strings.Join(names, ", "))
	}
	if len(beaten) > 0 {
		var names []string
		for _, o := range beaten {
			names = append(names, policyID(o))
		}
		fmt.Fprintf(&b, "; a matching PropagationPolicy always beats ClusterPropagationPolicies (%s)", strings.Join(names, ", "))
	}
	return b.String()
}

// schedule decides the members and replicas as Karmada's scheduler does
// for one policy (pkg/scheduler/core/common.go, AssignReplicas; and
// assignment.go): candidates by affinity; a workload (replicas above 0,
// or replica requirements) is Duplicated or divided by static weights,
// and members given 0 replicas get no object (removeZeroReplicasCluster);
// anything else goes to every candidate unchanged.
func schedule(all []placement.Cluster, pol *propagationPolicy, p plain, notes []string) ([]placement.Cluster, map[string]int32, string, []string, error) {
	pl := pol.Spec.Placement
	groups := candidateGroups(all, pl)
	if len(groups) == 0 || len(groups[0].members) == 0 {
		_, why := candidates(all, pl)
		notes = append(notes, fmt.Sprintf("candidates (%s): (none)", why))
		field := "spec.placement.clusterAffinity"
		if len(pl.ClusterAffinities) > 0 {
			field = "spec.placement.clusterAffinities"
		}
		return nil, nil, "", notes, &fieldError{field, fmt.Errorf("no member matches the placement: Karmada cannot schedule it (no clusters available)")}
	}
	// Karmada tries the next affinity group when one cannot be scheduled
	// (scheduleResourceBindingWithClusterAffinities).
	var failed []string
	var firstErr error
	var lastNotes []string
	for _, g := range groups {
		why := g.why
		if len(failed) > 0 {
			why += "; " + strings.Join(failed, "; ")
		}
		gnotes := append(slices.Clone(notes), fmt.Sprintf("candidates (%s): %s", why, orNone(names(g.members))))
		placed, counts, field, gnotes, err := scheduleOn(g.members, pl, p, gnotes)
		if !errors.As(err, new(*unschedulableError)) {
			return placed, counts, field, gnotes, err
		}
		firstErr = cmp.Or(firstErr, err)
		failed = append(failed, fmt.Sprintf("the group before it cannot be scheduled: %v", err))
		lastNotes = gnotes
	}
	return nil, nil, "", lastNotes, firstErr // no group can: Karmada reports the first's
}

// fieldError is a scheduling error that one field of the policy decides.
type fieldError struct {
	field string
	err   error
}

func (e *fieldError) Error() string { return e.err.Error() }
func (e *fieldError) Unwrap() error { return e.err }

// unschedulableError is a placement Karmada's scheduler cannot schedule on
// a group of candidates (too few groups for a spread constraint's
// minGroups): with clusterAffinities, the next group is tried. What fedctl
// cannot compute (capacity, scores) is not one.
type unschedulableError struct{ err error }

func (e *unschedulableError) Error() string { return e.err.Error() }
func (e *unschedulableError) Unwrap() error { return e.err }

// scheduleOn is schedule on one set of candidates.
func scheduleOn(cands []placement.Cluster, pl placementSpec, p plain, notes []string) ([]placement.Cluster, map[string]int32, string, []string, error) {
	w, isWorkload := workloadOf(p.head.Kind, p.obj)
	rs := pl.ReplicaScheduling
	divided := rs != nil && rs.ReplicaSchedulingType == "Divided"
	static := divided && (rs.WeightPreference == nil || rs.WeightPreference.DynamicWeight == "") && rs.ReplicaDivisionPreference != "Aggregated"
	// Karmada ignores spread constraints for a nil weightPreference or a
	// static list (shouldIgnoreSpreadConstraint), not for an empty one.
	ignoreSpread := static && (rs.WeightPreference == nil || len(rs.WeightPreference.StaticWeightList) > 0)
	if !ignoreSpread {
		if err := spreadGroups(cands, pl.SpreadConstraints); err != nil {
			return nil, nil, "", notes, &fieldError{"spec.placement.spreadConstraints", err}
		}
	}
	if !isWorkload || (w.Replicas <= 0 && !w.Requirements) {
		if isWorkload {
			notes = append(notes, "replicas 0 or unset and no resource requirements: not divided, every candidate gets the object unchanged (as Karmada)")
		}
		return cands, nil, "", notes, nil
	}
	counts := map[string]int32{}
	switch {
	case !divided && w.Defaulted:
		// Karmada writes its template's defaulted count; left out, the
		// member's API server defaults it the same
		notes = append(notes, fmt.Sprintf("Duplicated: every candidate gets %d replicas (%s left out, as each member defaults it)", w.Replicas, w.Field))
		return cands, nil, "", notes, nil
	case !divided:
		for _, c := range cands {
			counts[c.Name] = w.Replicas
		}
		notes = append(notes, fmt.Sprintf("Duplicated: every candidate gets %d replicas", w.Replicas))
	case rs.ReplicaDivisionPreference == "Aggregated":
		return nil, nil, "", notes, &fieldError{"spec.placement.replicaScheduling.replicaDivisionPreference", fmt.Errorf("Divided with replicaDivisionPreference Aggregated needs the members' available capacity, which fedctl does not read; use static weights")}
	case rs.WeightPreference != nil && rs.WeightPreference.DynamicWeight != "":
		return nil, nil, "", notes, &fieldError{"spec.placement.replicaScheduling.weightPreference.dynamicWeight", fmt.Errorf("dynamicWeight %s needs the members' available capacity, which fedctl does not read; use staticWeightList", rs.WeightPreference.DynamicWeight)}
	default:
		weights := staticWeights(cands, rs.WeightPreference)
		key := tieBreakKey(p)
		d := webster(w.Replicas, weights, key)
		counts = d.Replicas
		notes = append(notes, divisionNotes(w.Replicas, weights, key, d)...)
	}
	var placed []placement.Cluster
	for _, c := range cands {
		if counts[c.Name] > 0 {
			placed = append(placed, c)
		}
	}
	if dropped := len(cands) - len(placed); dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d candidate(s) got 0 replicas and get no object (Karmada removes them)", dropped))
	}
	return placed, counts, w.Field, notes, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// tieBreakKey is what orders members of equal weight and seats: the
// template's metadata.uid when the manifest has one (Karmada uses the
// resource template's uid), else fedctl's "<namespace>/<name>".
func tieBreakKey(p plain) string {
	meta, _ := p.obj["metadata"].(map[string]any)
	if uid, _ := meta["uid"].(string); uid != "" {
		return uid
	}
	if p.r.Namespace == "" {
		return p.r.Name
	}
	return p.r.Namespace + "/" + p.r.Name
}

func divisionNotes(total int32, weights map[string]int64, key string, d division) []string {
	var ws []string
	for _, n := range sortedNames(weights) {
		ws = append(ws, fmt.Sprintf("%s %d", n, weights[n]))
	}
	order := "ascending"
	if d.Descending {
		order = "descending"
	}
	var res []string
	for _, n := range sortedNames(d.Replicas) {
		res = append(res, fmt.Sprintf("%s %d", n, d.Replicas[n]))
	}
	return []string{
		fmt.Sprintf("Divided by static weights (%s): %d replicas by Webster, one at a time to the highest weight/divisor, the divisor being 2·replicas+1", strings.Join(ws, ", "), total),
		fmt.Sprintf("ties: fewer replicas first, then names %s (FNV-1a of %q)", order, key),
		"seats: " + d.String(),
		"result: " + orNone(strings.Join(res, ", ")),
	}
}

// memberOverrides writes one member's replicas (ReviseReplica, then a
// Job's completions), then applies the override policies that select the
// object and the member, in Karmada's order
// (pkg/util/overridemanager/overridemanager.go): ClusterOverridePolicies
// first, then the OverridePolicies of the object's namespace; each group
// by implicit priority (match-all, label selector, name) then name; rules
// in order; a rule applies when it has no targetCluster or it matches.
// A Namespace gets ClusterOverridePolicies only.
//
// selected are the policies that select the object, in that order
// (selectedOverridePolicies), found once for all its members.
func (ps *policySet) memberOverrides(a *applier, selected []*overridePolicy, m placement.Cluster, counts, completions map[string]int32, field string) error {
	spec, _ := a.obj["spec"].(map[string]any)
	if counts != nil && field != "" {
		// helper.ApplyReplica sets only a field that is there, and in
		// Karmada's template replicas and parallelism always are: its API
		// server defaults them (to 1) when the manifest leaves them out.
		verb := "replace"
		if _, ok := spec[field]; !ok {
			verb = "add"
		}
		if err := a.run([]op{{Op: verb, Path: "/spec/" + field, Value: int64(counts[m.Name]), Source: "replica division"}}); err != nil {
			return err
		}
	}
	if completions != nil {
		if err := a.run([]op{{Op: "replace", Path: "/spec/completions", Value: int64(completions[m.Name]), Source: "Job completions division"}}); err != nil {
			return err
		}
	}
	for _, b := range rulesFor(selected, m) {
		if err := a.overriders(b.overriders, b.source); err != nil {
			return err
		}
	}
	return nil
}

// selectedOverridePolicies are the override policies that select p's
// object, in the order Karmada applies them: ClusterOverridePolicies, then
// the OverridePolicies of its namespace (none for a Namespace), each group
// sorted by sortedOverridePolicies.
func (ps *policySet) selectedOverridePolicies(p plain, isNamespace bool) []*overridePolicy {
	out := sortedOverridePolicies(p.r, ps.clusterOverride)
	if p.r.Namespace != "" && !isNamespace {
		out = append(out, sortedOverridePolicies(p.r, ps.override[p.r.Namespace])...)
	}
	return out
}

// block is one rule's overriders that apply to a member, with the policy
// and rule it comes from.
type block struct {
	policy     string
	source     string
	overriders overriders
}

// overriderBlocks are the rules of policies (one kind: all
// OverridePolicies of a namespace, or all ClusterOverridePolicies) that
// apply to r in member m, in the order Karmada applies them
// (getOverridersFromOverridePolicies): policies by implicit priority then
// name, rules in order, those without a targetCluster or whose
// targetCluster matches; the deprecated single rule when there are no
// overrideRules.
func overriderBlocks(r resource, policies []*overridePolicy, m placement.Cluster) []block {
	return rulesFor(sortedOverridePolicies(r, policies), m)
}

// rulesFor are the rules of the sorted policies that apply in member m.
func rulesFor(sorted []*overridePolicy, m placement.Cluster) []block {
	var out []block
	for _, pol := range sorted {
		rules := pol.Spec.OverrideRules
		if len(rules) == 0 {
			rule := overrideRule{TargetCluster: pol.Spec.TargetCluster}
			if pol.Spec.Overriders != nil {
				rule.Overriders = *pol.Spec.Overriders
			}
			rules = []overrideRule{rule}
		}
		for i, rule := range rules {
			if rule.TargetCluster != nil && !clusterMatches(m, *rule.TargetCluster) {
				continue
			}
			out = append(out, block{policy: overridePolicyID(pol), source: fmt.Sprintf("%s rule %d", overridePolicyID(pol), i), overriders: rule.Overriders})
		}
	}
	return out
}

func overridePolicyID(p *overridePolicy) string {
	if p.Namespace == "" {
		return ClusterOverridePolicyKind + " " + p.Name
	}
	return OverridePolicyKind + " " + p.Namespace + "/" + p.Name
}

// sortedOverridePolicies are the policies that select r, those without
// selectors included, by implicit priority then name.
func sortedOverridePolicies(r resource, policies []*overridePolicy) []*overridePolicy {
	type ranked struct {
		p  *overridePolicy
		ip implicitPriority
	}
	var out []ranked
	for _, p := range policies {
		ip := matchAll
		if len(p.Spec.ResourceSelectors) > 0 {
			ip = selectorsPriority(r, p.Spec.ResourceSelectors)
			if ip == mismatch {
				continue
			}
		}
		out = append(out, ranked{p, ip})
	}
	slices.SortStableFunc(out, func(a, b ranked) int {
		if a.ip != b.ip {
			return int(a.ip) - int(b.ip)
		}
		return strings.Compare(a.p.Name, b.p.Name)
	})
	list := make([]*overridePolicy, len(out))
	for i, x := range out {
		list[i] = x.p
	}
	return list
}

// jobCompletions divides a Divided Job's completions among its members,
// weighted by the parallelism each got (pkg/controllers/binding/common.go,
// divideReplicasByJobCompletions and needReviseJobCompletions).
func jobCompletions(p plain, pol *propagationPolicy, counts map[string]int32, notes []string) (map[string]int32, []string) {
	rs := pol.Spec.Placement.ReplicaScheduling
	if p.head.Kind != "Job" || counts == nil || rs == nil || rs.ReplicaSchedulingType != "Divided" {
		return nil, notes
	}
	spec, _ := p.obj["spec"].(map[string]any)
	if _, ok := spec["completions"]; !ok {
		return nil, notes
	}
	total := intField(spec, "completions", 0)
	weights := map[string]int64{}
	for n, c := range counts {
		weights[n] = int64(c)
	}
	d := webster(total, weights, tieBreakKey(p))
	out := map[string]int32{}
	for n := range counts {
		out[n] = d.Replicas[n]
	}
	var res []string
	for _, n := range sortedNames(out) {
		res = append(res, fmt.Sprintf("%s %d", n, out[n]))
	}
	return out, append(notes, fmt.Sprintf("Job completions %d divided by each member's parallelism: %s", total, strings.Join(res, ", ")))
}
