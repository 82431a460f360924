package explain

import (
	"encoding/json"

	"github.com/fedctl/fedctl/pkg/placement"
)

// Report is the explanation of a set of federated objects. Its JSON form
// (fedctl explain -o json|yaml) is a stable schema for tools: fields are
// only ever added. Lists are sorted: members by name, objects by group,
// kind, namespace and name, clusters by name; plan steps are in the order
// the planner took them and overrides in the order they apply.
type Report struct {
	APIVersion string `json:"apiVersion"` // fedctl.io/v1alpha1
	Kind       string `json:"kind"`       // Explanation
	// Members are the federation's member clusters with their labels.
	Members []Member `json:"members"`
	// Objects are the federated objects explained.
	Objects []Object `json:"objects"`
	// Rollout, with explain --rollout, is the order apply --rollout goes
	// in: the waves, their members, and what each member gets.
	Rollout *Rollout `json:"rollout,omitempty"`
}

// Rollout explains apply --rollout's waves.
type Rollout struct {
	Waves       []RolloutWave `json:"waves"`
	Soak        string        `json:"soak,omitempty"`
	Timeout     string        `json:"timeout"`
	MaxFailures int           `json:"maxFailures"`
	Warnings    []string      `json:"warnings,omitempty"`
}

// RolloutWave is one wave: its members and, for each, the member objects
// it is sent (all objects, not only the ones explained).
type RolloutWave struct {
	Name           string         `json:"name"`
	Clusters       []string       `json:"clusters"`
	MaxConcurrency int            `json:"maxConcurrency,omitempty"`
	Objects        map[string]int `json:"objects"`
}

// Report's apiVersion and kind.
const (
	ReportAPIVersion = "fedctl.io/v1alpha1"
	ReportKind       = "Explanation"
)

// Member is a member cluster.
type Member struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	// Provider, Region and Zones are the member's location (Karmada's
	// fieldSelector selects by them).
	Provider string   `json:"provider,omitempty"`
	Region   string   `json:"region,omitempty"`
	Zones    []string `json:"zones,omitempty"`
}

// Object explains one federated object.
type Object struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// Source is where the object is defined: "file:line".
	Source string `json:"source"`
	// Compiled says what the input dialect decided when it compiled the
	// object (Karmada: the policy chosen and why, the candidates, the
	// replica division step by step), for objects that were not written
	// as federated objects.
	Compiled *Compiled `json:"compiled,omitempty"`
	// Placement says which members the object goes to and why.
	Placement Placement `json:"placement"`
	// Scheduling is the ReplicaSchedulingPreference's plan, when one
	// targets the object.
	Scheduling *Scheduling `json:"scheduling,omitempty"`
	// Overrides has, for each member the object is placed in (limited by
	// --cluster), the overrides applied there, in order.
	Overrides []ClusterOverrides `json:"overrides,omitempty"`
	// Errors fail the object: positioned messages ("file:line: object:
	// field: cause"), as fedctl render reports them.
	Errors []string `json:"errors,omitempty"`
}

// Compiled is what a dialect decided compiling an object.
type Compiled struct {
	// Dialect is the input dialect: "Karmada".
	Dialect string `json:"dialect"`
	// Notes are its decisions, one line each, in the order taken.
	Notes []string `json:"notes"`
}

// Placement explains where an object goes.
type Placement struct {
	// Own is the object's spec.placement.
	Own Selection `json:"own"`
	// ScheduledBy names the ReplicaSchedulingPreference whose plan
	// replaced the object's own placement with every planned member, those
	// planned 0 included (KubeFed's RSP controller writes
	// spec.placement.clusters).
	ScheduledBy string   `json:"scheduledBy,omitempty"`
	Scheduled   []string `json:"scheduled,omitempty"`
	// Namespace is the placement of the FederatedNamespace of a namespaced
	// object, which the object's placement is intersected with.
	Namespace *NamespacePlacement `json:"namespace,omitempty"`
	// Reason is KubeFed's status reason when the object goes nowhere for
	// want of something: NamespaceNotFederated.
	Reason string `json:"reason,omitempty"`
	// SystemNamespace: a FederatedNamespace for kube-system, kube-public or
	// default, never propagated as a Namespace; its placement still applies
	// to the objects in it.
	SystemNamespace bool `json:"systemNamespace,omitempty"`
	// PlacementOnly: the FederatedNamespace of a namespace-scoped
	// federation's namespace, never propagated; its placement limits the
	// objects in it.
	PlacementOnly bool `json:"placementOnly,omitempty"`
	// Migrated are the migrations (fedctl migrate) that moved the object
	// from a member to another, in the order they applied.
	Migrated []Migrated `json:"migrated,omitempty"`
	// MigratedTo are, for a FederatedNamespace, the members it is also
	// placed in because migrations send objects in it there.
	MigratedTo []string `json:"migratedTo,omitempty"`
	// Clusters are the members the object is placed in.
	Clusters []string `json:"clusters"`
}

// Migrated is one migration recorded in the federation file by fedctl
// migrate that applied to an object or its replica plan.
type Migrated struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Selector string `json:"selector"`
}

// Selection explains one placement (spec.placement of an object or of its
// FederatedNamespace, or an RSP's selector-only view of it).
type Selection struct {
	// Rule decided: "clusters" (the list decides alone, even when empty),
	// "clusterSelector" (members whose labels match), or "none" (neither
	// given, or no selector: nothing is selected).
	Rule string `json:"rule"`
	// Listed are the names in spec.placement.clusters (rule clusters).
	Listed []string `json:"listed,omitempty"`
	// Unknown are listed names that are not members, dropped.
	Unknown []string `json:"unknown,omitempty"`
	// Terms are the selector's requirements (rule clusterSelector); none
	// means {}, which selects every member.
	Terms []placement.Term `json:"terms,omitempty"`
	// Members says, for every member (rule clusterSelector), whether it is
	// selected and how its labels fared against each term.
	Members []placement.ClusterMatch `json:"members,omitempty"`
	// Selected are the members selected.
	Selected []string `json:"selected"`
	// Error is an invalid selector (KubeFed's ComputePlacementFailed).
	Error string `json:"error,omitempty"`
}

// NamespacePlacement is the FederatedNamespace a namespaced object is
// intersected with.
type NamespacePlacement struct {
	Name string `json:"name"`
	// Found is false when the input has no FederatedNamespace for it.
	Found bool `json:"found"`
	// Optional: the object is placed by its own placement all the same,
	// as its input system needs no namespace object (Karmada).
	Optional  bool       `json:"optional,omitempty"`
	Source    string     `json:"source,omitempty"`
	Selection *Selection `json:"selection,omitempty"`
}

// Scheduling explains a ReplicaSchedulingPreference's plan.
type Scheduling struct {
	// Preference is "ReplicaSchedulingPreference namespace/name".
	Preference    string `json:"preference"`
	Source        string `json:"source"`
	TotalReplicas int32  `json:"totalReplicas"`
	Rebalance     bool   `json:"rebalance"`
	// Key seeds the hash that orders clusters of equal weight.
	Key string `json:"key"`
	// Defaulted: spec.clusters was empty and counted as {"*": {weight: 1}}.
	Defaulted bool `json:"defaulted,omitempty"`
	// Migrated are the migrations (fedctl migrate) that moved a member's
	// replicas to another after planning.
	Migrated []Migrated `json:"migrated,omitempty"`
	// Preferences are spec.clusters as planned, by key ("*" first).
	Preferences []Preference `json:"preferences"`
	// IntersectWithClusterSelector limits the clusters considered to those
	// the target's clusterSelector picks (Selector) instead of all members.
	IntersectWithClusterSelector bool       `json:"intersectWithClusterSelector,omitempty"`
	Selector                     *Selection `json:"selector,omitempty"`
	// Considered are the clusters planned for; when none of them is left
	// to plan over (cordoned, not answering; Skipped says so), the
	// clusters the preference considered.
	Considered []string `json:"considered"`
	// Stranded are the members left out because migrations send the
	// target off them to a member that is cordoned or did not answer:
	// "a (migrated to b, cordoned)". Their shares go to the others.
	Stranded string `json:"stranded,omitempty"`
	// Steps are the planner's steps, in order.
	Steps []Step `json:"steps,omitempty"`
	// Plan is the replicas per cluster as written to placement and
	// overrides (the planner's plan plus overflow).
	Plan []Replicas `json:"plan,omitempty"`
	// Overflow is the planner's overflow (only with estimated capacities,
	// which fedctl does not have offline).
	Overflow []Replicas `json:"overflow,omitempty"`
	// Unplaced are replicas that fit nowhere.
	Unplaced int64 `json:"unplaced"`
	// Live are the members' figures the plan was made from (explain
	// --live), and the plan the manifests alone give, for comparison.
	Live *LiveFigures `json:"live,omitempty"`
	// Skipped says why nothing was planned: no clusters to plan for, in
	// which case KubeFed's scheduler leaves the object as it is.
	Skipped string `json:"skipped,omitempty"`
	// Error is why the plan failed.
	Error string `json:"error,omitempty"`
}

// Preference is one entry of an RSP's spec.clusters.
type Preference struct {
	Cluster     string `json:"cluster"`
	MinReplicas int64  `json:"minReplicas"`
	MaxReplicas *int64 `json:"maxReplicas,omitempty"`
	Weight      int64  `json:"weight"`
}

// Replicas is a number of replicas for one cluster.
type Replicas struct {
	Cluster  string `json:"cluster"`
	Replicas int64  `json:"replicas"`
}

// Step is one step of the planner (planner.Step). Kind says which fields
// it has:
//
//	unmatched    cluster: no preference and no "*": planned 0, out
//	ordered      cluster, position, preference, minReplicas, maxReplicas (absent: none), weight, hash
//	minimum      cluster, minReplicas, replicas, total, remaining
//	preallocated cluster, replicas, total, remaining
//	pass         pass, weightSum, distribute, remaining
//	share        cluster, pass, weight, weightSum, distribute, share, offered, usedPreallocated,
//	             replicas, total, remaining, cappedByMax, cappedByCapacity, overflow, full
//	overflow     cluster, overflow, remaining
//	done         remaining (the replicas that fit nowhere)
type Step struct {
	Kind             string `json:"kind"`
	Cluster          string `json:"cluster,omitempty"`
	Position         int    `json:"position,omitempty"`
	Preference       string `json:"preference,omitempty"`
	MinReplicas      *int64 `json:"minReplicas,omitempty"`
	MaxReplicas      *int64 `json:"maxReplicas,omitempty"`
	Weight           *int64 `json:"weight,omitempty"`
	Hash             string `json:"hash,omitempty"`
	Pass             int    `json:"pass,omitempty"`
	WeightSum        *int64 `json:"weightSum,omitempty"`
	Distribute       *int64 `json:"distribute,omitempty"`
	Share            *int64 `json:"share,omitempty"`
	Offered          *int64 `json:"offered,omitempty"`
	UsedPreallocated *int64 `json:"usedPreallocated,omitempty"`
	Replicas         *int64 `json:"replicas,omitempty"`
	Total            *int64 `json:"total,omitempty"`
	Overflow         *int64 `json:"overflow,omitempty"`
	Remaining        *int64 `json:"remaining,omitempty"`
	CappedByMax      bool   `json:"cappedByMax,omitempty"`
	CappedByCapacity bool   `json:"cappedByCapacity,omitempty"`
	Full             bool   `json:"full,omitempty"`
}

// ClusterOverrides are the overrides applied to one member object.
type ClusterOverrides struct {
	Cluster string `json:"cluster"`
	// Replicas is the count the ReplicaSchedulingPreference planned for
	// this cluster, when one did.
	Replicas *int64 `json:"replicas,omitempty"`
	// Applied are the overrides applied, in order; on failure, those
	// applied before the one that failed.
	Applied []Override `json:"applied"`
	// Superseded are the overrides of entries that apply to this cluster
	// that a later one on the same path replaced (later wins): not applied.
	Superseded []SupersededOverride `json:"superseded,omitempty"`
	// Error is the override that failed: the member gets no object
	// (KubeFed's ApplyOverridesFailed).
	Error *OverrideError `json:"error,omitempty"`

	// object is the member object before fedctl's markers, for tests.
	object map[string]any
}

// SupersededOverride is an override that a later one on the same path
// replaced, with the field of each.
type SupersededOverride struct {
	Field string `json:"field"`
	Op    string `json:"op"`
	Path  string `json:"path"`
	By    string `json:"by"`
}

// Origins of an Override.
const (
	// FromOverrides: the federated object's spec.overrides.
	FromOverrides = "overrides"
	// FromPreference: the /spec/replicas override a
	// ReplicaSchedulingPreference adds for every planned cluster.
	FromPreference = "replicaSchedulingPreference"
	// FromOverridesSetByPreference: the user's own /spec/replicas
	// override, whose value the ReplicaSchedulingPreference replaced
	// (UserValue is what the user wrote).
	FromOverridesSetByPreference = "overrides+replicaSchedulingPreference"
)

// Override is one override applied to a member object.
type Override struct {
	// From says where the override comes from (FromOverrides, ...).
	From string `json:"from"`
	// Field is its place in the federated object
	// (spec.overrides[0].clusterOverrides[1]); empty for one the
	// ReplicaSchedulingPreference added.
	Field string `json:"field,omitempty"`
	Op    string `json:"op"`
	Path  string `json:"path"`
	// Old is the JSON value at Path before, absent when there was none;
	// New is the value written, absent for remove.
	Old json.RawMessage `json:"old,omitempty"`
	New json.RawMessage `json:"new,omitempty"`
	// UserValue is the value the user's override held before the
	// ReplicaSchedulingPreference replaced it.
	UserValue json.RawMessage `json:"userValue,omitempty"`
	// Redacted says that Old, New and UserValue are left out because they
	// may be Secret data: any override of a Secret outside /metadata/.
	Redacted bool `json:"redacted,omitempty"`
}

// OverrideError is an override that failed for one cluster.
type OverrideError struct {
	// Source is "file:line" of the failing override.
	Source  string `json:"source"`
	From    string `json:"from"`
	Field   string `json:"field,omitempty"`
	Index   int    `json:"index"`
	Op      string `json:"op"`
	Path    string `json:"path"`
	Message string `json:"message"`
}

// LiveFigures are what the members said that a plan used.
type LiveFigures struct {
	// NotAnswering are members left out of the plan (failover), unless
	// KeepShares (--no-failover).
	NotAnswering []string `json:"notAnswering,omitempty"`
	KeepShares   bool     `json:"keepShares,omitempty"`
	// Current are the members' current replicas, Capacity their
	// estimated capacity where pods cannot be scheduled.
	Current  []Replicas `json:"current,omitempty"`
	Capacity []Replicas `json:"capacity,omitempty"`
	// OfflinePlan is the plan from the manifests alone (render's).
	OfflinePlan []Replicas `json:"offlinePlan,omitempty"`
}
