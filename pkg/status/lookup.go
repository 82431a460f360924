package status

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/drift"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// LookupInput names one federated object without its manifests (fedctl
// status TYPE NAME).
type LookupInput struct {
	// Type is the federated object's target type (apps/v1 Deployment for a
	// FederatedDeployment).
	Type      typeconfig.Type
	Namespace string // ignored for cluster-scoped types
	Name      string
	Clusters  []string
	Clients   func(cluster string) (members.Client, error)
	// Concurrency and Timeout as in Input.
	Concurrency int
	Timeout     time.Duration
}

// Source is the value of the federated-object annotation the member
// objects carry.
func (in LookupInput) Source() string {
	o := &federation.Object{}
	o.Kind, o.Name, o.Namespace = in.Type.FederatedKind(), in.Name, in.federatedNamespace()
	return o.SourceRef()
}

// federatedNamespace is the namespace of the federated object: its own
// name for a FederatedNamespace, none for other cluster-scoped types.
func (in LookupInput) federatedNamespace() string {
	switch {
	case in.Type.Kind == "Namespace" && in.Type.Group == "":
		return in.Name
	case in.Type.Namespaced():
		return in.Namespace
	}
	return ""
}

// Lookup reads the state of one federated object from the member objects
// that name it in their fedctl.io/federated-object annotation, found with
// one label-selected LIST per member, without the manifests. So it can
// tell where the object is, its readiness, and whether someone changed its
// spec since fedctl applied it (generation drift); it cannot tell where
// the object should be (placement), whether the manifests changed since,
// nor AlreadyExists, ApplyOverridesFailed or NamespaceNotFederated. Members
// that hold none of its objects are left out; the report's item then lists
// only the members that do, plus those that could not be read.
func Lookup(ctx context.Context, in LookupInput) *Report {
	source := in.Source()
	item := Object{APIVersion: federation.TypesGroup + "/" + federation.TypesVersion, Kind: in.Type.FederatedKind(),
		Metadata: ObjectMeta{Name: in.Name}, Status: ObjectStatus{Conditions: []Condition{{Type: "Propagation"}}, Clusters: []ClusterStatus{}}}
	item.Metadata.Namespace = in.federatedNamespace()
	clusters := slices.Compact(slices.Sorted(slices.Values(in.Clusters))) // --cluster may repeat
	type lookedUp struct {
		found []ClusterStatus
		err   error
	}
	answers, failed := forEachMember(ctx, in.Concurrency, in.Timeout, clusters, func(mctx context.Context, i int) lookedUp {
		found, err := lookupMember(mctx, in, clusters[i], source)
		return lookedUp{found, err}
	})
	found := make([][]ClusterStatus, len(clusters))
	errs := make([]error, len(clusters))
	for i, a := range answers {
		found[i], errs[i] = a.found, cmp.Or(failed[i], a.err)
	}
	report := &Report{}
	for i, name := range clusters {
		if errs[i] != nil {
			report.Unreachable = append(report.Unreachable, ClusterError{Name: name, Error: errs[i].Error()})
			item.Status.Clusters = append(item.Status.Clusters, ClusterStatus{Name: name, Status: ClusterNotReady, Message: errs[i].Error(), Readiness: Unknown, placed: true})
			continue
		}
		item.Status.Clusters = append(item.Status.Clusters, found[i]...)
	}
	report.Items = []Object{item}
	report.finish()
	return report
}

func lookupMember(ctx context.Context, in LookupInput, cluster, source string) ([]ClusterStatus, error) {
	a, err := in.Clients(cluster)
	if err != nil {
		return nil, err
	}
	m, err := a.Map(ctx, gvkOf(in.Type))
	var ns *members.NotServedError
	switch {
	case errors.As(err, &ns):
		return nil, nil // nothing of the type there
	case err != nil:
		return nil, members.RequestError(err)
	}
	// A namespaced member object is in its federated object's
	// namespace: listing there alone needs rights there alone.
	items, err := a.List(ctx, m, members.ListOptions{LabelSelector: federation.ManagedBySelector, Namespace: in.Namespace})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", m.Resource.GroupResource(), members.RequestError(err))
	}
	var out []ClusterStatus
	for i := range items {
		obj := &items[i]
		if obj.GetAnnotations()[federation.SourceAnnotation] != source {
			continue
		}
		out = append(out, lookupStatus(cluster, obj))
	}
	return out, nil
}

func lookupStatus(cluster string, obj *unstructured.Unstructured) ClusterStatus {
	st := ClusterStatus{Name: cluster, Object: refOf(obj.Object), placed: true}
	switch {
	case federation.HandsOff(obj):
		st.Status = ManagedLabelFalse
		st.Message = fmt.Sprintf("labelled %s: \"false\"; fedctl does not touch it", federation.ManagedLabel)
	default:
		if reason := drift.Generation(obj); reason != "" {
			st.Status, st.Message = Drifted, reason
		}
	}
	readiness(&st, obj)
	return st
}
