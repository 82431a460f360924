package federation

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// API groups fedctl reads. KubeFed renamed its groups from *.kubefed.k8s.io
// to *.kubefed.io; manifests of both eras are accepted.
const (
	TypesGroup       = "types.kubefed.io"
	LegacyTypesGroup = "types.kubefed.k8s.io"
	TypesVersion     = "v1beta1"

	SchedulingGroup       = "scheduling.kubefed.io"
	LegacySchedulingGroup = "scheduling.kubefed.k8s.io"
	SchedulingVersion     = "v1alpha1"

	// KindPrefix starts the kind of every federated type: Federated<Kind>.
	KindPrefix = "Federated"
	// RSPKind is the kind of a ReplicaSchedulingPreference.
	RSPKind = "ReplicaSchedulingPreference"
)

// Object is a Federated<Kind>: a template for the member objects, where to
// place them and how each member's copy differs. FederatedNamespace is an
// Object too (its template is a Namespace).
type Object struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ObjectSpec `json:"spec"`
	// Status is ignored; it is accepted so that objects exported from a
	// KubeFed control plane load as they are.
	Status any `json:"status,omitempty"`

	// Pos locates the object and its fields in the input.
	Pos manifest.Positions `json:"-"`
	// Origin is the dialect and document the object was read from.
	Origin Origin `json:"-"`
	// Rules are where the input's system renders differently from
	// KubeFed; zero for KubeFed's own objects.
	Rules Rules `json:"-"`
	// Notes explain, for explain, what a dialect decided when it compiled
	// the object (which policy chose it and why, how replicas were
	// divided); one line each.
	Notes []string `json:"-"`
	// MemberErrors fail the object for one member each: a dialect found,
	// compiling it, that the member's copy cannot be made (a Karmada
	// override that does not apply there), by member name.
	MemberErrors map[string]error `json:"-"`
}

// Rules are the rendering rules of an input system where they differ from
// KubeFed's.
type Rules struct {
	// KeepAnnotations sends the template's annotations to the members
	// (Karmada does; KubeFed drops them).
	KeepAnnotations bool
	// NamespaceOptional places a namespaced object by its own placement
	// when the input has no FederatedNamespace for its namespace (Karmada
	// needs none: the namespace exists in its control plane), where
	// KubeFed places it nowhere (NamespaceNotFederated).
	NamespaceOptional bool
	// PlacementOnly: the object is never propagated; its placement only
	// limits where the objects in its namespace go (the FederatedNamespace
	// of a namespace-scoped federation's own namespace).
	PlacementOnly bool
	// ByReachability says the placement depends on which members answer
	// (Karmada's clusterAffinities: the first group with a member that
	// answers): commands that reach members probe them first and decode
	// again with those that do not answer marked
	// (placement.Cluster.Unreachable).
	ByReachability bool
}

// ObjectSpec is the spec of a federated object.
type ObjectSpec struct {
	// Template is the member object without name and namespace. It keeps
	// every field, known or not.
	Template Template `json:"template,omitempty"`
	// Placement chooses the member clusters.
	Placement Placement `json:"placement,omitempty"`
	// Overrides are JSON patches per member cluster.
	Overrides []ClusterOverrides `json:"overrides,omitempty"`
	// RetainReplicas leaves spec.replicas of an existing member object to
	// whoever else scales it (an HPA), for scalable types.
	RetainReplicas *bool `json:"retainReplicas,omitempty"`
}

// Placement chooses member clusters. Nil and empty differ and follow
// KubeFed: a non-nil Clusters list decides alone, even when empty (no
// clusters); only when it is nil does ClusterSelector apply, where nil
// selects nothing and an empty selector ({}) selects every member.
type Placement struct {
	Clusters        []ClusterRef          `json:"clusters,omitempty"`
	ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
}

// MarshalJSON keeps an empty, non-nil Clusters list, which means "no
// clusters" and must survive a round trip.
func (p Placement) MarshalJSON() ([]byte, error) {
	type plain struct {
		Clusters        []ClusterRef          `json:"clusters"`
		ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
	}
	if p.Clusters == nil {
		type noClusters struct {
			ClusterSelector *metav1.LabelSelector `json:"clusterSelector,omitempty"`
		}
		return json.Marshal(noClusters{ClusterSelector: p.ClusterSelector})
	}
	return json.Marshal(plain(p))
}

// ClusterRef names a member cluster.
type ClusterRef struct {
	Name string `json:"name"`
}

// ClusterOverrides are the patches for one member cluster, applied in
// order: the member named by ClusterName (KubeFed's), or every member whose
// labels ClusterSelector matches (fedctl's extension, kubefed#581 and
// #1462). A member several entries apply to gets them in list order, and
// for a path that a later entry sets again the later one wins.
type ClusterOverrides struct {
	ClusterName      string                `json:"clusterName,omitempty"`
	ClusterSelector  *metav1.LabelSelector `json:"clusterSelector,omitempty"`
	ClusterOverrides []Override            `json:"clusterOverrides,omitempty"`
	// Containers are fedctl's typed overrides of the pod template's
	// containers, by name; they apply before the JSON patches.
	Containers []ContainerOverride `json:"containers,omitempty"`
}

// ContainerOverride overrides fields of the container (or init container)
// named Name in the object's pod template: Image replaces the whole image
// reference, Tag only its tag (registry, repository and a digest are
// kept); Command and Args replace theirs; Env sets each variable by name;
// Resources sets each quantity by key.
type ContainerOverride struct {
	Name      string            `json:"name"`
	Image     string            `json:"image,omitempty"`
	Tag       string            `json:"tag,omitempty"`
	Command   []string          `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       []EnvVar          `json:"env,omitempty"`
	Resources *ResourceOverride `json:"resources,omitempty"`
}

// EnvVar is a container's environment variable: a value, or a valueFrom
// source as a container spells it.
type EnvVar struct {
	Name      string         `json:"name"`
	Value     string         `json:"value,omitempty"`
	ValueFrom map[string]any `json:"valueFrom,omitempty"`
}

// ResourceOverride sets quantities of a container's resources by key.
type ResourceOverride struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

// Override is one JSON-patch operation. Op is add, remove or replace;
// empty means replace, as in KubeFed.
type Override struct {
	Op    string          `json:"op,omitempty"`
	Path  string          `json:"path"`
	Value json.RawMessage `json:"value,omitempty"`
	// Source names what made the operation when a dialect compiled it
	// from something else (a Karmada policy's overrider), for explain
	// and messages; empty for operations written as they are.
	Source string `json:"-"`
}

// Template is a free-form object. Numbers decode the way the API machinery
// decodes them (int64 when integral, float64 otherwise), so that large
// integers survive and rendered output matches what kubectl would send.
type Template map[string]any

// UnmarshalJSON decodes with the API machinery's number handling.
func (t *Template) UnmarshalJSON(data []byte) error {
	var m map[string]any
	if err := utiljson.Unmarshal(data, &m); err != nil {
		return err
	}
	if m == nil && string(data) != "null" {
		return fmt.Errorf("template must be an object")
	}
	*t = m
	return nil
}

// UnmarshalObject takes an object manifest.DecodeStrict decoded already,
// with numbers as UnmarshalJSON decodes them, sparing a JSON round trip.
func (t *Template) UnmarshalObject(obj map[string]any) error {
	*t = obj
	return nil
}

var _ manifest.ObjectUnmarshaler = (*Template)(nil)

// ReplicaSchedulingPreference splits the replicas of the federated
// Deployment or ReplicaSet of the same namespace and name across members.
type ReplicaSchedulingPreference struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RSPSpec `json:"spec"`
	Status            any     `json:"status,omitempty"`

	// Pos locates the object and its fields in the input.
	Pos manifest.Positions `json:"-"`
}

// RSPSpec is the spec of a ReplicaSchedulingPreference.
type RSPSpec struct {
	// TargetKind is FederatedDeployment or FederatedReplicaSet.
	TargetKind string `json:"targetKind"`
	// TotalReplicas is the number of replicas to split.
	TotalReplicas int32 `json:"totalReplicas"`
	// Rebalance lets the planner move running replicas; without it,
	// replicas already running in a member stay there.
	Rebalance bool `json:"rebalance,omitempty"`
	// Clusters maps member names, or "*" for every other member, to their
	// preferences. Empty means {"*": {weight: 1}}.
	Clusters map[string]ClusterPreferences `json:"clusters,omitempty"`
	// IntersectWithClusterSelector limits the members considered to those
	// the target's clusterSelector picks.
	IntersectWithClusterSelector bool `json:"intersectWithClusterSelector,omitempty"`
	// Considered, when not nil, limits the members the plan considers to
	// these: a dialect's placement (a Karmada policy placing a Federation
	// v1 workload). KubeFed has no such field; it is never decoded.
	Considered []string `json:"-"`
}

// ClusterPreferences bound and weigh one member's share of replicas.
type ClusterPreferences struct {
	MinReplicas int64  `json:"minReplicas,omitempty"`
	MaxReplicas *int64 `json:"maxReplicas,omitempty"`
	Weight      int64  `json:"weight,omitempty"`
}

// Annotations on a federated object that change how its member objects are
// removed (KubeFed's names and meanings).
const (
	// OrphanAnnotation "true" keeps member objects running when they are
	// no longer wanted; only fedctl's markers are removed from them.
	OrphanAnnotation = "kubefed.io/orphan"
	// DeleteOptionAnnotation holds JSON metav1.DeleteOptions used when
	// member objects are deleted.
	DeleteOptionAnnotation = "kubefed.io/deleteoption"
)
