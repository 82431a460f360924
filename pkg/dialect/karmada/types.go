package karmada

import (
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// Group and version of Karmada's policies (pkg/apis/policy/v1alpha1).
const (
	Group   = "policy.karmada.io"
	Version = "v1alpha1"
)

// Policy kinds.
const (
	PropagationPolicyKind        = "PropagationPolicy"
	ClusterPropagationPolicyKind = "ClusterPropagationPolicy"
	OverridePolicyKind           = "OverridePolicy"
	ClusterOverridePolicyKind    = "ClusterOverridePolicy"
)

// SkipAutoPropagationLabel on a Namespace keeps Karmada's namespace sync
// from sending it to every member (policyv1alpha1.NamespaceSkipAutoPropagationLabel).
const SkipAutoPropagationLabel = "namespace.karmada.io/skip-auto-propagation"

// propagationPolicy is a PropagationPolicy or a ClusterPropagationPolicy
// (pkg/apis/policy/v1alpha1/propagation_types.go). Fields that only a
// running Karmada acts on are accepted and ignored; the README lists them.
type propagationPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              propagationSpec `json:"spec"`
	Status            any             `json:"status,omitempty"`

	// pos locates the policy's fields, for errors in scheduling with it.
	pos manifest.Positions
}

type propagationSpec struct {
	ResourceSelectors []resourceSelector `json:"resourceSelectors"`
	Placement         placementSpec      `json:"placement,omitempty"`
	// Priority is the explicit priority (0 when unset).
	Priority *int32 `json:"priority,omitempty"`

	PropagateDeps               bool            `json:"propagateDeps,omitempty"`
	Association                 bool            `json:"association,omitempty"`
	Preemption                  string          `json:"preemption,omitempty"`
	DependentOverrides          []string        `json:"dependentOverrides,omitempty"`
	SchedulerName               string          `json:"schedulerName,omitempty"`
	Failover                    json.RawMessage `json:"failover,omitempty"`
	ConflictResolution          string          `json:"conflictResolution,omitempty"`
	ActivationPreference        string          `json:"activationPreference,omitempty"`
	Suspension                  json.RawMessage `json:"suspension,omitempty"`
	PreserveResourcesOnDeletion *bool           `json:"preserveResourcesOnDeletion,omitempty"`
	SchedulePriority            json.RawMessage `json:"schedulePriority,omitempty"`
	WorkloadAffinity            json.RawMessage `json:"workloadAffinity,omitempty"`
}

type resourceSelector struct {
	APIVersion    string                `json:"apiVersion"`
	Kind          string                `json:"kind"`
	Namespace     string                `json:"namespace,omitempty"`
	Name          string                `json:"name,omitempty"`
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
}

type placementSpec struct {
	ClusterAffinity    *clusterAffinity        `json:"clusterAffinity,omitempty"`
	ClusterAffinities  []clusterAffinityTerm   `json:"clusterAffinities,omitempty"`
	ClusterTolerations json.RawMessage         `json:"clusterTolerations,omitempty"`
	SpreadConstraints  []spreadConstraint      `json:"spreadConstraints,omitempty"`
	ReplicaScheduling  *replicaSchedulingStrat `json:"replicaScheduling,omitempty"`
}

// clusterAffinity selects members (pkg/util/selector.go, ClusterMatches).
type clusterAffinity struct {
	LabelSelector   *metav1.LabelSelector `json:"labelSelector,omitempty"`
	FieldSelector   *fieldSelector        `json:"fieldSelector,omitempty"`
	ClusterNames    []string              `json:"clusterNames,omitempty"`
	ExcludeClusters []string              `json:"exclude,omitempty"`
}

type clusterAffinityTerm struct {
	AffinityName    string `json:"affinityName"`
	clusterAffinity `json:",inline"`
}

type fieldSelector struct {
	MatchExpressions []fieldRequirement `json:"matchExpressions,omitempty"`
}

// fieldRequirement is a node-selector requirement over the member's
// provider, region or zone.
type fieldRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

type spreadConstraint struct {
	SpreadByField string `json:"spreadByField,omitempty"`
	SpreadByLabel string `json:"spreadByLabel,omitempty"`
	MaxGroups     int    `json:"maxGroups,omitempty"`
	MinGroups     int    `json:"minGroups,omitempty"`
}

type replicaSchedulingStrat struct {
	ReplicaSchedulingType     string            `json:"replicaSchedulingType,omitempty"`
	ReplicaDivisionPreference string            `json:"replicaDivisionPreference,omitempty"`
	WeightPreference          *weightPreference `json:"weightPreference,omitempty"`
}

type weightPreference struct {
	StaticWeightList []staticClusterWeight `json:"staticWeightList,omitempty"`
	DynamicWeight    string                `json:"dynamicWeight,omitempty"`
}

type staticClusterWeight struct {
	TargetCluster clusterAffinity `json:"targetCluster"`
	Weight        int64           `json:"weight"`
}

// overridePolicy is an OverridePolicy or a ClusterOverridePolicy
// (pkg/apis/policy/v1alpha1/override_types.go).
type overridePolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              overrideSpec `json:"spec"`
	Status            any          `json:"status,omitempty"`
}

type overrideSpec struct {
	ResourceSelectors []resourceSelector `json:"resourceSelectors,omitempty"`
	OverrideRules     []overrideRule     `json:"overrideRules,omitempty"`
	// TargetCluster and Overriders are the deprecated single rule.
	TargetCluster *clusterAffinity `json:"targetCluster,omitempty"`
	Overriders    *overriders      `json:"overriders,omitempty"`
}

type overrideRule struct {
	TargetCluster *clusterAffinity `json:"targetCluster,omitempty"`
	Overriders    overriders       `json:"overriders"`
}

// overriders apply in this field order within one rule
// (pkg/util/overridemanager/overridemanager.go, applyPolicyOverriders).
type overriders struct {
	Plaintext            []plaintextOverrider       `json:"plaintext,omitempty"`
	ImageOverrider       []imageOverrider           `json:"imageOverrider,omitempty"`
	CommandOverrider     []commandArgsOverrider     `json:"commandOverrider,omitempty"`
	ArgsOverrider        []commandArgsOverrider     `json:"argsOverrider,omitempty"`
	LabelsOverrider      []labelAnnotationOverrider `json:"labelsOverrider,omitempty"`
	AnnotationsOverrider []labelAnnotationOverrider `json:"annotationsOverrider,omitempty"`
	FieldOverrider       []fieldOverrider           `json:"fieldOverrider,omitempty"`
}

type plaintextOverrider struct {
	Path     string          `json:"path"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value,omitempty"`
}

type imageOverrider struct {
	Predicate *imagePredicate `json:"predicate,omitempty"`
	Component string          `json:"component"`
	Operator  string          `json:"operator"`
	Value     string          `json:"value,omitempty"`
}

type imagePredicate struct {
	Path string `json:"path"`
}

type commandArgsOverrider struct {
	ContainerName string   `json:"containerName"`
	Operator      string   `json:"operator"`
	Value         []string `json:"value,omitempty"`
}

type labelAnnotationOverrider struct {
	Operator string            `json:"operator"`
	Value    map[string]string `json:"value,omitempty"`
}

type fieldOverrider struct {
	FieldPath string         `json:"fieldPath"`
	JSON      []fieldPatchOp `json:"json,omitempty"`
	YAML      []fieldPatchOp `json:"yaml,omitempty"`
}

type fieldPatchOp struct {
	SubPath  string          `json:"subPath"`
	Operator string          `json:"operator"`
	Value    json.RawMessage `json:"value,omitempty"`
}
