package members

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CAPIGroup is the API group of Cluster API's Cluster.
const CAPIGroup = "cluster.x-k8s.io"

// capiVersions are the versions of Cluster that fedctl reads, preferred
// first: v1beta1, which every Cluster API release since 1.0 serves, then
// v1beta2, the only one left once a release drops v1beta1.
var capiVersions = []string{"v1beta1", "v1beta2"}

// Cluster API's phases (status.phase) in which a workload cluster is going
// or gone: fedctl does not try to reach it. Deprovisioning is what
// v1alpha2 called Deleting; Failed is set by v1beta1 controllers only.
const (
	CAPIPhaseDeleting       = "Deleting"
	CAPIPhaseDeprovisioning = "Deprovisioning"
	CAPIPhaseFailed         = "Failed"
	// CAPIPhaseNotFound is not Cluster API's: fedctl's word for a Cluster
	// that does not exist (deleted).
	CAPIPhaseNotFound = "NotFound"
	// CAPIPhaseUnknown is Cluster API's phase for "cannot be told", which
	// fedctl also uses when it cannot read the Cluster.
	CAPIPhaseUnknown = "Unknown"
)

// Reasons of a member's Ready condition when its Cluster is not probed.
const (
	ReasonClusterDeleted  = "ClusterDeleted"
	ReasonClusterDeleting = "ClusterDeleting"
	ReasonClusterFailed   = "ClusterFailed"
)

// ClusterAPIStatus is what the management cluster says of a member's
// Cluster, the Cluster API columns of get clusters.
type ClusterAPIStatus struct {
	// APIVersion is the version of the Cluster it was read in
	// ("cluster.x-k8s.io/v1beta1").
	APIVersion string `json:"apiVersion,omitempty"`
	// Phase is status.phase, NotFound for a Cluster that does not exist,
	// Unknown when it cannot be read.
	Phase string `json:"phase,omitempty"`
	// ControlPlaneReady and InfrastructureReady are True, False or Unknown
	// ("" when the Cluster was not read). v1beta1: the conditions of those
	// types, else status.controlPlaneReady and status.infrastructureReady.
	// v1beta2 has no ControlPlaneReady: its ControlPlaneAvailable
	// condition (the control plane serves) stands for it, else
	// status.initialization.controlPlaneInitialized; InfrastructureReady
	// is its condition of that name, else
	// status.initialization.infrastructureProvisioned.
	ControlPlaneReady   string `json:"controlPlaneReady,omitempty"`
	InfrastructureReady string `json:"infrastructureReady,omitempty"`
	// Deleting says metadata.deletionTimestamp is set.
	Deleting bool `json:"deleting,omitempty"`
	// Message says why the Cluster failed (its failureReason and
	// failureMessage) or why it could not be read.
	Message string `json:"message,omitempty"`
}

// ClusterAPIStatusOf reads the status of a Cluster, in whichever version it
// was read (see ClusterAPIStatus for how the versions map).
func ClusterAPIStatusOf(obj *unstructured.Unstructured) ClusterAPIStatus {
	s := ClusterAPIStatus{APIVersion: obj.GetAPIVersion(), Deleting: obj.GetDeletionTimestamp() != nil}
	s.Phase, _, _ = unstructured.NestedString(obj.Object, "status", "phase")
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	var failure []string
	if schema.FromAPIVersionAndKind(obj.GetAPIVersion(), "").Version == "v1beta2" {
		s.ControlPlaneReady = conditionOr(conditions, "ControlPlaneAvailable", obj.Object, "status", "initialization", "controlPlaneInitialized")
		s.InfrastructureReady = conditionOr(conditions, "InfrastructureReady", obj.Object, "status", "initialization", "infrastructureProvisioned")
		failure = nestedStrings(obj.Object, "status", "deprecated", "v1beta1", "failureReason", "failureMessage")
	} else {
		s.ControlPlaneReady = conditionOr(conditions, "ControlPlaneReady", obj.Object, "status", "controlPlaneReady")
		s.InfrastructureReady = conditionOr(conditions, "InfrastructureReady", obj.Object, "status", "infrastructureReady")
		failure = nestedStrings(obj.Object, "status", "failureReason", "failureMessage")
	}
	s.Message = strings.Join(failure, ": ")
	return s
}

// conditionOr is the status of the condition of type t in conditions, else
// the boolean at path as True or False (absent: False, which is how Cluster
// API's omitempty booleans say false).
func conditionOr(conditions []any, t string, obj map[string]any, path ...string) string {
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if typ, _ := cond["type"].(string); typ == t {
			if status, _ := cond["status"].(string); status != "" {
				return status
			}
			return "Unknown"
		}
	}
	if b, _, _ := unstructured.NestedBool(obj, path...); b {
		return "True"
	}
	return "False"
}

// nestedStrings are the non-empty strings at the fields names of the map
// at path.
func nestedStrings(obj map[string]any, pathAndNames ...string) []string {
	path, names := pathAndNames[:len(pathAndNames)-2], pathAndNames[len(pathAndNames)-2:]
	var out []string
	for _, n := range names {
		if v, _, _ := unstructured.NestedString(obj, append(slices.Clone(path), n)...); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// NotServing says whether the member's Cluster is deleted, being deleted or
// failed, with the reason and message of its Ready condition: fedctl then
// does not try to reach it.
func (s ClusterAPIStatus) NotServing(c CAPI) (reason, message string, ok bool) {
	ref := fmt.Sprintf("Cluster %s/%s", c.Namespace, c.Cluster)
	switch {
	case s.Phase == CAPIPhaseNotFound:
		return ReasonClusterDeleted, fmt.Sprintf("%s not found in management cluster %s: deleted? %s", ref, c.ManagementContext, c.Kubectl("get cluster "+c.Cluster)), true
	case s.Deleting || s.Phase == CAPIPhaseDeleting || s.Phase == CAPIPhaseDeprovisioning:
		why := "phase " + s.Phase
		if s.Deleting {
			why = "deletionTimestamp set, phase " + cmp.Or(s.Phase, "none")
		}
		return ReasonClusterDeleting, fmt.Sprintf("%s is being deleted in management cluster %s (%s); not probed", ref, c.ManagementContext, why), true
	case s.Phase == CAPIPhaseFailed:
		msg := fmt.Sprintf("%s failed (phase Failed) in management cluster %s; not probed", ref, c.ManagementContext)
		if s.Message != "" {
			msg += ": " + s.Message
		}
		return ReasonClusterFailed, msg, true
	}
	return "", "", false
}

// ChooseClusterVersion is the version of Cluster fedctl reads from what the
// management cluster serves of group cluster.x-k8s.io: the first of
// v1beta1 and v1beta2 it serves.
func ChooseClusterVersion(group metav1.APIGroup) (string, error) {
	served := make([]string, len(group.Versions))
	for i, v := range group.Versions {
		served[i] = v.Version
	}
	for _, v := range capiVersions {
		if slices.Contains(served, v) {
			return v, nil
		}
	}
	return "", fmt.Errorf("it serves %s in version(s) %s, and fedctl reads %s", CAPIGroup, strings.Join(served, ", "), strings.Join(capiVersions, " or "))
}

// clusterResource returns where the management cluster serves Cluster, discovered
// once per run from its API group (one request).
func (mg *management) clusterResource(ctx context.Context, c CAPI) (schema.GroupVersionResource, error) {
	mg.mu.Lock()
	defer mg.mu.Unlock()
	if mg.clusters != nil {
		return *mg.clusters, nil
	}
	if err := mg.down(); err != nil {
		return schema.GroupVersionResource{}, err
	}
	var body []byte
	err := Retry(ctx, Idempotent, func() error {
		var err error
		body, err = mg.core.Discovery().RESTClient().Get().AbsPath("/apis/" + CAPIGroup).DoRaw(ctx)
		return err
	})
	if apierrors.IsNotFound(err) {
		return schema.GroupVersionResource{}, fmt.Errorf("Cluster API is not installed in management cluster %s: it serves no API group %s; is %q the management cluster's context?", c.ManagementContext, CAPIGroup, c.ManagementContext)
	}
	if err != nil {
		return schema.GroupVersionResource{}, mg.fail(c, "cannot discover API group "+CAPIGroup, err)
	}
	var group metav1.APIGroup
	if err := json.Unmarshal(body, &group); err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("management cluster %s: decode API group %s: %w", c.ManagementContext, CAPIGroup, err)
	}
	version, err := ChooseClusterVersion(group)
	if err != nil {
		return schema.GroupVersionResource{}, fmt.Errorf("management cluster %s: %w", c.ManagementContext, err)
	}
	mg.clusters = &schema.GroupVersionResource{Group: CAPIGroup, Version: version, Resource: "clusters"}
	return *mg.clusters, nil
}

// ClusterAPICluster is one Cluster of a management cluster.
type ClusterAPICluster struct {
	Namespace string
	Name      string
	Labels    map[string]string
	Status    ClusterAPIStatus
}

func clusterOf(obj *unstructured.Unstructured) ClusterAPICluster {
	return ClusterAPICluster{Namespace: obj.GetNamespace(), Name: obj.GetName(), Labels: obj.GetLabels(), Status: ClusterAPIStatusOf(obj)}
}

// withManagementDeadline bounds the reads of one call to a management
// cluster, retries included: the run's per-request timeout, else
// managementTimeout.
func (a Access) withManagementDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, cmp.Or(a.Timeout, managementTimeout))
}

// GetClusterAPICluster reads the Cluster c names. A Cluster that does not
// exist is not an error: its Status.Phase is NotFound.
func GetClusterAPICluster(ctx context.Context, a Access, c CAPI) (ClusterAPICluster, error) {
	mg, err := a.management(c)
	if err != nil {
		return ClusterAPICluster{}, err
	}
	ctx, cancel := a.withManagementDeadline(ctx)
	defer cancel()
	gvr, err := mg.clusterResource(ctx, c)
	if err != nil {
		return ClusterAPICluster{}, err
	}
	if err := mg.down(); err != nil {
		return ClusterAPICluster{}, err
	}
	var obj *unstructured.Unstructured
	err = Retry(ctx, Idempotent, func() error {
		var err error
		obj, err = mg.dynamic.Resource(gvr).Namespace(c.Namespace).Get(ctx, c.Cluster, metav1.GetOptions{})
		return err
	})
	switch {
	case apierrors.IsNotFound(err):
		return ClusterAPICluster{Namespace: c.Namespace, Name: c.Cluster, Status: ClusterAPIStatus{APIVersion: gvr.GroupVersion().String(), Phase: CAPIPhaseNotFound}}, nil
	case apierrors.IsForbidden(err):
		return ClusterAPICluster{}, fmt.Errorf("reading Cluster %s/%s in management cluster %s is forbidden: %s", c.Namespace, c.Cluster, c.ManagementContext, statusMessage(err))
	case err != nil:
		return ClusterAPICluster{}, mg.fail(c, fmt.Sprintf("cannot read Cluster %s/%s", c.Namespace, c.Cluster), err)
	}
	return clusterOf(obj), nil
}

// ReadClusterAPIStatus is the status of m's Cluster. What cannot be read
// is Phase Unknown with the reason in Message; it never fails.
func ReadClusterAPIStatus(ctx context.Context, a Access, m Member) ClusterAPIStatus {
	cl, err := GetClusterAPICluster(ctx, a, *m.CAPI)
	if err != nil {
		return ClusterAPIStatus{Phase: CAPIPhaseUnknown, ControlPlaneReady: "Unknown", InfrastructureReady: "Unknown", Message: err.Error()}
	}
	return cl.Status
}

// ListClusterAPIClusters lists the Clusters that match selector in namespace
// ("": every namespace) of the management cluster of mgmt (whose Namespace
// and Cluster are not used), sorted by namespace and name.
func ListClusterAPIClusters(ctx context.Context, a Access, mgmt CAPI, namespace string, selector labels.Selector) ([]ClusterAPICluster, error) {
	mg, err := a.management(mgmt)
	if err != nil {
		return nil, err
	}
	ctx, cancel := a.withManagementDeadline(ctx)
	defer cancel()
	gvr, err := mg.clusterResource(ctx, mgmt)
	if err != nil {
		return nil, err
	}
	if err := mg.down(); err != nil {
		return nil, err
	}
	var list *unstructured.UnstructuredList
	err = Retry(ctx, Idempotent, func() error {
		var err error
		list, err = mg.dynamic.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{LabelSelector: selector.String()})
		return err
	})
	where := "every namespace"
	if namespace != "" {
		where = "namespace " + namespace
	}
	switch {
	case apierrors.IsForbidden(err):
		return nil, fmt.Errorf("listing the Clusters of %s in management cluster %s is forbidden: %s", where, mgmt.ManagementContext, statusMessage(err))
	case err != nil:
		return nil, mg.fail(mgmt, "cannot list the Clusters of "+where, err)
	}
	out := make([]ClusterAPICluster, len(list.Items))
	for i := range list.Items {
		out[i] = clusterOf(&list.Items[i])
	}
	slices.SortFunc(out, func(x, y ClusterAPICluster) int {
		return cmp.Or(strings.Compare(x.Namespace, y.Namespace), strings.Compare(x.Name, y.Name))
	})
	return out, nil
}
