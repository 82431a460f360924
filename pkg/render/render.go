package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/overrides"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// systemNamespaces are never propagated as Namespaces, as in KubeFed; their
// FederatedNamespace still places the objects inside them.
var systemNamespaces = []string{"kube-system", "kube-public", "default"}

// replicasPath is the override an RSP writes for every scheduled member.
const replicasPath = "/spec/replicas"

// Target is one member object: what one member cluster should hold for one
// federated object.
type Target struct {
	Cluster string
	Type    typeconfig.Type
	Object  map[string]any
	Source  *federation.Object
}

// Namespace is the member object's namespace ("" when cluster-scoped).
func (t Target) Namespace() string {
	if !t.Type.Namespaced() {
		return ""
	}
	return t.Source.Namespace
}

// Name is the member object's name.
func (t Target) Name() string { return t.Source.Name }

// Placed records where one federated object goes.
type Placed struct {
	Object *federation.Object
	Type   typeconfig.Type
	// Clusters are the members the object is placed in, sorted; rendering
	// may still have failed for some (see Result.Errors).
	Clusters []string
}

// Result is the output of ForClusters.
type Result struct {
	// Targets are sorted by cluster, group, kind, namespace and name.
	Targets []Target
	// Placed lists every federated object with its members, in input order.
	Placed []Placed
	// Warnings do not fail the render.
	Warnings []*manifest.Error
	// Errors are per object (failing every member) or per member; see
	// TargetError.
	Errors []error
}

// Err joins the errors.
func (r *Result) Err() error { return errors.Join(r.Errors...) }

// TargetError is a failure to render one federated object, for one member
// (Cluster set) or for all of them (Cluster empty).
type TargetError struct {
	Cluster string
	Object  *federation.Object
	Err     error
}

func (e *TargetError) Error() string {
	if e.Cluster == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("cluster %s: %v", e.Cluster, e.Err)
}

func (e *TargetError) Unwrap() error { return e.Err }

// Input is what ForClusters renders.
type Input struct {
	Set   *federation.Set
	Types federation.Types
	// Members are the member clusters with their labels.
	Members []placement.Cluster
	// Only, when not empty, limits the output to these members. Placement
	// and replica plans are computed over all members regardless, so that
	// the objects for a member are the same whichever members are shown.
	Only []string
}

// ForClusters renders every federated object of in.Set for every member it
// is placed in.
func ForClusters(in Input) *Result {
	res := &Result{}
	namespaces := map[string]*federation.Object{}
	for _, o := range in.Set.Objects {
		if o.IsNamespace() {
			namespaces[o.Name] = o
		}
	}
	effective := schedule(in, res)
	for _, o := range in.Set.Objects {
		eff := effective[o]
		if eff == nil {
			eff = o
		}
		renderObject(in, res, o, eff, namespaces)
	}
	slices.SortFunc(res.Targets, compareTargets)
	return res
}

func renderObject(in Input, res *Result, o, eff *federation.Object, namespaces map[string]*federation.Object) {
	t, ok := in.Types.ByFederatedKind(o.Kind)
	if !ok { // Decode checked this; a caller that skipped Decode gets an error
		res.Errors = append(res.Errors, &TargetError{Object: o, Err: o.Errorf("kind", "%s is not enabled", o.Kind)})
		return
	}
	if err := overrides.Validate(eff.Spec.Overrides); err != nil {
		res.fail("", o, err)
		return
	}
	clusters, err := selectClusters(in, res, o, eff, t, namespaces)
	if err != nil {
		res.fail("", o, err)
		return
	}
	res.Placed = append(res.Placed, Placed{Object: o, Type: t, Clusters: clusters})
	if o.IsNamespace() && slices.Contains(systemNamespaces, o.Name) {
		if len(clusters) > 0 {
			res.Warnings = append(res.Warnings, o.Errorf("", "namespace %s is a system namespace and is never propagated; its placement still applies to the objects in it", o.Name))
		}
		return
	}
	base := baseObject(o, t)
	if dropped := droppedMetadata(o); dropped != "" {
		res.Warnings = append(res.Warnings, o.Errorf("spec.template.metadata", "%s of the template are not propagated (as in KubeFed); use overrides to set them per cluster", dropped))
	}
	for _, c := range clusters {
		if len(in.Only) > 0 && !slices.Contains(in.Only, c) {
			continue
		}
		obj, err := forCluster(base, c, eff.Spec.Overrides)
		if err != nil {
			res.fail(c, o, err)
			continue
		}
		mark(obj, o)
		res.Targets = append(res.Targets, Target{Cluster: c, Type: t, Object: obj, Source: o})
	}
}

// selectClusters applies placement, then for namespaced objects the
// placement of the FederatedNamespace of their namespace.
func selectClusters(in Input, res *Result, o, eff *federation.Object, t typeconfig.Type, namespaces map[string]*federation.Object) ([]string, error) {
	sel, err := placement.Select(eff.Spec.Placement, in.Members)
	if err != nil {
		return nil, err
	}
	if len(sel.Unknown) > 0 {
		res.Warnings = append(res.Warnings, o.Errorf("spec.placement.clusters", "not members, ignored: %s", strings.Join(sel.Unknown, ", ")))
	}
	clusters := sel.Clusters
	if !t.Namespaced() || o.IsNamespace() {
		return clusters, nil
	}
	ns, ok := namespaces[o.Namespace]
	if !ok {
		if len(clusters) > 0 {
			res.Warnings = append(res.Warnings, o.Errorf("metadata.namespace", "NamespaceNotFederated: no FederatedNamespace %s in the input, so the object is placed nowhere", o.Namespace))
		}
		return nil, nil
	}
	nsSel, err := placement.Select(ns.Spec.Placement, in.Members)
	if err != nil {
		return nil, o.Errorf("metadata.namespace", "placement of FederatedNamespace %s: %v", o.Namespace, err)
	}
	return placement.Intersect(clusters, nsSel.Clusters), nil
}

// baseObject is the template with what every member shares: name,
// namespace, kind and apiVersion set, annotations and finalizers removed.
// Members get deep copies of it.
func baseObject(o *federation.Object, t typeconfig.Type) map[string]any {
	obj := runtime.DeepCopyJSON(map[string]any(o.Spec.Template))
	if obj == nil {
		obj = map[string]any{}
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	delete(meta, "annotations")
	delete(meta, "finalizers")
	meta["name"] = o.Name
	if t.Namespaced() {
		meta["namespace"] = o.Namespace
	} else {
		delete(meta, "namespace")
	}
	obj["kind"] = t.Kind
	if v, _ := obj["apiVersion"].(string); v == "" {
		obj["apiVersion"] = t.APIVersion()
	}
	return obj
}

func droppedMetadata(o *federation.Object) string {
	meta, _ := o.Spec.Template["metadata"].(map[string]any)
	var dropped []string
	if _, ok := meta["annotations"]; ok {
		dropped = append(dropped, "annotations")
	}
	if _, ok := meta["finalizers"]; ok {
		dropped = append(dropped, "finalizers")
	}
	return strings.Join(dropped, " and ")
}

// forCluster returns the member object for cluster: a copy of base with the
// cluster's overrides applied.
func forCluster(base map[string]any, cluster string, ovs []federation.ClusterOverrides) (map[string]any, error) {
	obj := runtime.DeepCopyJSON(base)
	if !hasOverrides(cluster, ovs) {
		return obj, nil
	}
	return overrides.Apply(obj, cluster, ovs)
}

func hasOverrides(cluster string, ovs []federation.ClusterOverrides) bool {
	for _, o := range ovs {
		if o.ClusterName == cluster && len(o.ClusterOverrides) > 0 {
			return true
		}
	}
	return false
}

// mark adds the labels and annotation that identify a member object as
// fedctl's, last, so that neither the template nor an override removes them.
func mark(obj map[string]any, o *federation.Object) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil { // an override replaced /metadata with something else
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	labels[federation.ManagedLabel] = federation.ManagedLabelValue
	labels[federation.ManagedByLabel] = federation.ManagedByValue
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[federation.SourceAnnotation] = federation.SourceOf(o)
}

// fail records err, one TargetError per problem it holds, for cluster ("":
// every cluster) and object o, each with o's file and line.
func (r *Result) fail(cluster string, o *federation.Object, err error) {
	for _, e := range positioned(o, err) {
		r.Errors = append(r.Errors, &TargetError{Cluster: cluster, Object: o, Err: e})
	}
}

// positioned attaches the object's file and line to each problem in err,
// at the field it names when it names one.
func positioned(o *federation.Object, err error) []error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	out := make([]error, 0, len(list))
	for _, e := range list {
		var me *manifest.Error
		if errors.As(e, &me) {
			out = append(out, e) // positioned already
			continue
		}
		var ofe *overrides.FieldError
		var pfe *placement.FieldError
		var ae *overrides.ApplyError
		switch {
		case errors.As(e, &ae): // the cluster is the TargetError's to name
			out = append(out, o.Errorf(ae.Field, "%s %s: %v", ae.Op, ae.Path, ae.Err))
			continue
		case errors.As(e, &ofe):
			out = append(out, o.Errorf(ofe.Field, "%v", ofe.Err))
			continue
		case errors.As(e, &pfe):
			out = append(out, o.Errorf(pfe.Field, "%v", pfe.Err))
			continue
		}
		out = append(out, o.Errorf("", "%v", e))
	}
	return out
}

func compareTargets(a, b Target) int {
	return cmpChain(
		strings.Compare(a.Cluster, b.Cluster),
		strings.Compare(a.Type.Group, b.Type.Group),
		strings.Compare(a.Type.Kind, b.Type.Kind),
		strings.Compare(a.Namespace(), b.Namespace()),
		strings.Compare(a.Name(), b.Name()),
	)
}

func cmpChain(results ...int) int {
	for _, r := range results {
		if r != 0 {
			return r
		}
	}
	return 0
}
