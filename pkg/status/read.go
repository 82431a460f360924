package status

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/fedctl/fedctl/pkg/drift"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Defaults of Input.
const (
	DefaultConcurrency = 8
	DefaultTimeout     = 30 * time.Second
)

// Input is what Read reads.
type Input struct {
	// Result is what the engine rendered from the manifests.
	Result *render.Result
	// Clusters are the members to read, usually every member.
	Clusters []string
	// Clients returns the Client of a member (members.NewMemberClient); it
	// is called once per member and read, in that member's goroutine.
	Clients func(cluster string) (members.Client, error)
	// Concurrency bounds the members read at once, Timeout the reading of
	// one member; zero means the defaults.
	Concurrency int
	Timeout     time.Duration
	// Cordoned are the members fedctl cordon cordoned: apply creates no
	// object and removes none there, and the report says so (Cordoned)
	// instead of what apply would do elsewhere.
	Cordoned []string
}

// Read reads the state of every federated object of in.Result in every
// member of in.Clusters. Problems the render found are states, not errors:
// a federated object whose placement failed is ComputePlacementFailed, a
// member whose overrides failed ApplyOverridesFailed. Read never fails as a
// whole: a member that cannot be read is ClusterNotReady for every object
// placed there and listed in Report.Unreachable.
func Read(ctx context.Context, in Input) *Report {
	res := in.Result
	objects := map[*federation.Object]*Object{}
	var order []*federation.Object
	entry := func(o *federation.Object) *Object {
		if obj, ok := objects[o]; ok {
			return obj
		}
		obj := &Object{APIVersion: o.APIVersion, Kind: o.Kind, Metadata: ObjectMeta{Name: o.Name, Namespace: o.Namespace, Labels: o.Labels},
			Status: ObjectStatus{Conditions: []Condition{{Type: "Propagation"}}, Clusters: []ClusterStatus{}}}
		objects[o] = obj
		order = append(order, o)
		return obj
	}
	placed := map[string]render.Placed{}
	for _, p := range res.Placed {
		obj := entry(p.Object)
		placed[p.Object.SourceRef()] = p
		if p.NamespaceNotFederated {
			cond := &obj.Status.Conditions[0]
			cond.Reason = NamespaceNotFederated
			cond.Message = fmt.Sprintf("no FederatedNamespace %s in the input, so the object is placed nowhere; add one to place it", p.Object.Namespace)
		}
	}
	for _, err := range res.Errors {
		var te *render.TargetError
		if !errors.As(err, &te) || te.Cluster != "" {
			continue
		}
		cond := &entry(te.Object).Status.Conditions[0]
		cond.Reason = ComputePlacementFailed
		cond.Message = joinMessage(cond.Message, te.Err.Error())
	}

	clusters := slices.Compact(slices.Sorted(slices.Values(in.Clusters))) // --cluster may repeat
	perCluster, errs := forEachMember(ctx, in.Concurrency, in.Timeout, clusters, func(mctx context.Context, i int) memberRead {
		return readMember(mctx, in, clusters[i], placed)
	})
	for i, err := range errs {
		if err != nil {
			// Its read never ran, or ended in a panic: the objects placed
			// there are not known, not absent.
			perCluster[i] = unread(res, clusters[i], err)
		}
	}

	report := &Report{}
	for _, p := range res.Placed {
		for _, c := range p.Clusters {
			if !slices.Contains(clusters, c) {
				obj := entry(p.Object)
				obj.unread = append(obj.unread, c)
			}
		}
	}
	for i, name := range clusters {
		mr := perCluster[i]
		if mr.err != nil {
			report.Unreachable = append(report.Unreachable, ClusterError{Name: name, Error: mr.err.Error()})
		}
		for _, e := range mr.entries {
			entry(e.source).Status.Clusters = append(entry(e.source).Status.Clusters, e.status)
		}
	}
	for _, o := range order {
		report.Items = append(report.Items, *objects[o])
	}
	report.finish()
	return report
}

func joinMessage(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

// forEachMember reads each of clusters with members.Gather, which gives
// up on a member at its deadline even when making its client blocks (an
// exec credential plugin): a wait is bounded by its timeout whatever a
// member does.
func forEachMember[T any](ctx context.Context, concurrency int, timeout time.Duration, clusters []string, read func(context.Context, int) T) ([]T, []error) {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return members.Gather(ctx, concurrency, timeout, len(clusters), read)
}

// memberRead is what was read in one member.
type memberRead struct {
	err     error // the member could not be read
	entries []memberEntry
}

type memberEntry struct {
	source *federation.Object
	status ClusterStatus
}

// unread is a member whose objects could not be read: each target placed
// there is ClusterNotReady, with err.
func unread(res *render.Result, cluster string, err error) memberRead {
	mr := memberRead{err: err}
	for _, t := range res.Targets {
		if t.Cluster == cluster {
			mr.entries = append(mr.entries, memberEntry{source: t.Source, status: ClusterStatus{
				Name: cluster, Status: ClusterNotReady, Message: err.Error(), Object: refOf(t.Object),
				Readiness: Unknown, DesiredReplicas: replicas(t.Object), placed: true,
			}})
		}
	}
	return mr
}

// readMember reads the member objects of the federated objects in
// in.Result from one member.
func readMember(ctx context.Context, in Input, cluster string, placed map[string]render.Placed) memberRead {
	res := in.Result
	var mr memberRead
	var targets []render.Target
	for _, t := range res.Targets {
		if t.Cluster == cluster {
			targets = append(targets, t)
		}
	}
	// Objects that failed to render for this member (their overrides, or
	// their replica state that could not be read for the plan): nothing
	// is read for them but what runs (below).
	for _, err := range res.Errors {
		var te *render.TargetError
		if errors.As(err, &te) && te.Cluster == cluster {
			st := ClusterStatus{Name: cluster, Status: ApplyOverridesFailed, Message: te.Err.Error(), Readiness: NotFound, placed: true}
			var unreadState *render.UnreadStateError
			if errors.As(te.Err, &unreadState) {
				// its replica state could not be read for the plan: not
				// the input's fault, and another read may do
				st.Status = RetrievalFailed
			}
			mr.entries = append(mr.entries, memberEntry{source: te.Object, status: st})
		}
	}
	// A member that stops answering halfway is unread from then on: its
	// targets' entries so far are replaced, not doubled, and the override
	// failures, which read nothing, are kept.
	overrideFailures := len(mr.entries)
	notReady := func(err error) memberRead {
		u := unread(res, cluster, err)
		u.entries = append(mr.entries[:overrideFailures:overrideFailures], u.entries...)
		return u
	}
	a, err := in.Clients(cluster)
	if err != nil {
		return notReady(err)
	}
	types := make([]typeconfig.Type, 0, len(res.Placed))
	for _, p := range res.Placed {
		if !p.Object.Rules.PlacementOnly { // never propagated
			types = append(types, p.Type)
		}
	}
	live, notServed, unlisted, err := listManaged(ctx, a, types, res.Namespace)
	if err != nil {
		return notReady(err)
	}
	seen := map[liveKey]bool{}
	// An object whose overrides fail here may still run here, as an
	// earlier apply left it: shown as it is, not as NotFound.
	for i := range mr.entries[:overrideFailures] {
		e := &mr.entries[i]
		p, ok := placed[e.source.SourceRef()]
		if !ok {
			continue
		}
		key := liveKey{p.Type.Group, p.Type.Kind, "", e.source.Name}
		if p.Type.Namespaced() {
			key.namespace = e.source.Namespace
		}
		if obj := live[key]; obj != nil {
			seen[key] = true
			e.status.Object = refOf(obj.Object)
			readiness(&e.status, obj)
		}
	}
	cordoned := slices.Contains(in.Cordoned, cluster)
	// In a cordoned member apply creates nothing: a placed object that is
	// not there (its type not served either, when its CRD is in the input
	// and so was not created) is Cordoned, and not placed for the wait and
	// the counts, as it will not come.
	absentCordoned := func(st ClusterStatus) ClusterStatus {
		st.Status, st.Readiness, st.placed = Cordoned, NotFound, false
		st.Message = "placed here but not in the cluster, which is cordoned: apply creates no object there (fedctl uncordon lifts it)"
		return st
	}
	for _, t := range targets {
		st := ClusterStatus{Name: cluster, Object: refOf(t.Object), DesiredReplicas: replicas(t.Object), placed: true}
		gvk := gvkOf(t.Type)
		if notServed[gvk] && cordoned && definedIn(targets, gvk.GroupKind()) {
			// its CRD comes with the input, which the cordon keeps out
			// (as apply skips it); without one, apply fails on the type
			mr.entries = append(mr.entries, memberEntry{source: t.Source, status: absentCordoned(st)})
			continue
		}
		if notServed[gvk] {
			st.Status, st.Readiness = TypeNotServed, NotFound
			st.Message = (&members.NotServedError{GVK: gvk}).Error()
			mr.entries = append(mr.entries, memberEntry{source: t.Source, status: st})
			continue
		}
		if err := unlisted[gvk]; err != nil {
			// the member answered and refused this type's LIST: its
			// other types are read, this one is not known
			st.Status, st.Readiness, st.Message = RetrievalFailed, Unknown, err.Error()
			mr.entries = append(mr.entries, memberEntry{source: t.Source, status: st})
			continue
		}
		key := liveKey{gvk.Group, gvk.Kind, t.Namespace(), t.Name()}
		seen[key] = true
		obj := live[key]
		if obj == nil {
			// Not among fedctl's objects: absent, or someone else's.
			obj, err = getObject(ctx, a, gvk, t.Namespace(), t.Name())
			switch {
			case apierrors.IsNotFound(err) && cordoned:
				mr.entries = append(mr.entries, memberEntry{source: t.Source, status: absentCordoned(st)})
				continue
			case apierrors.IsNotFound(err):
				st.Status, st.Readiness = NotApplied, NotFound
				st.Message = "placed here but not in the cluster; fedctl apply creates it"
				mr.entries = append(mr.entries, memberEntry{source: t.Source, status: st})
				continue
			case err != nil:
				if !members.Refused(ctx, err) {
					return notReady(members.RequestError(err))
				}
				st.Status, st.Readiness, st.Message = RetrievalFailed, Unknown, members.RequestError(err).Error()
				mr.entries = append(mr.entries, memberEntry{source: t.Source, status: st})
				continue
			}
		}
		switch {
		case federation.HandsOff(obj):
			st.Status = ManagedLabelFalse
			st.Message = fmt.Sprintf("labelled %s: \"false\"; fedctl does not touch it", federation.ManagedLabel)
		case !federation.Owned(obj):
			st.Status = AlreadyExists
			st.Message = "exists and was not created by fedctl; fedctl apply --adopt takes it over"
		default:
			reason, err := drift.Check(t, obj)
			if err != nil {
				reason = err.Error()
			}
			if reason != "" {
				st.Status, st.Message = Drifted, reason
			}
		}
		readiness(&st, obj)
		mr.entries = append(mr.entries, memberEntry{source: t.Source, status: st})
	}
	// Objects of federated objects in the input that are no longer placed
	// here: apply removes them.
	for _, key := range slices.SortedFunc(maps.Keys(live), compareKeys) {
		obj := live[key]
		if seen[key] {
			continue
		}
		p, ok := placed[obj.GetAnnotations()[federation.SourceAnnotation]]
		if !ok || slices.Contains(p.Clusters, cluster) {
			continue
		}
		st := ClusterStatus{Name: cluster, Status: WaitingForRemoval, Object: refOf(obj.Object),
			Message: "no longer placed here; fedctl apply deletes it"}
		switch {
		case p.NamespaceNotFederated:
			st.Status = NamespaceNotFederated
			st.Message = fmt.Sprintf("no FederatedNamespace %s in the input; fedctl apply leaves it alone", p.Object.Namespace)
		case cordoned:
			st.Status = Cordoned
			st.Message = "no longer placed here; the member is cordoned and keeps what runs there (after fedctl uncordon, apply removes it)"
		case p.Object.Annotations[federation.OrphanAnnotation] == "true":
			st.Message = "no longer placed here; fedctl apply unmarks it and leaves it running (kubefed.io/orphan)"
		}
		readiness(&st, obj)
		mr.entries = append(mr.entries, memberEntry{source: p.Object, status: st})
	}
	return mr
}

// definedIn says whether a CustomResourceDefinition among targets defines
// gk.
func definedIn(targets []render.Target, gk schema.GroupKind) bool {
	return slices.ContainsFunc(targets, func(t render.Target) bool {
		group, kind, ok := t.DefinedKind()
		return ok && group == gk.Group && kind == gk.Kind
	})
}

// liveKey identifies an object in one member.
type liveKey struct{ group, kind, namespace, name string }

func compareKeys(a, b liveKey) int {
	for _, c := range [][2]string{{a.group, b.group}, {a.kind, b.kind}, {a.namespace, b.namespace}, {a.name, b.name}} {
		if c[0] != c[1] {
			if c[0] < c[1] {
				return -1
			}
			return 1
		}
	}
	return 0
}

func gvkOf(t typeconfig.Type) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: t.Group, Version: t.Version, Kind: t.Kind}
}

// listManaged lists fedctl's objects of each of types in one member, one
// LIST per resource, and returns them by key along with the types the
// member does not serve and those whose LIST it refused (an API status
// other than 401: a 403 for one type, a 5xx that outlasted the retries),
// with why: the member answered, and its other types are read, as apply
// does. A failure that says the member cannot be reached (transport, 401,
// time) fails the member. A namespace limits the lists of namespaced types
// to it (a namespace-scoped federation).
func listManaged(ctx context.Context, a members.Client, types []typeconfig.Type, namespace string) (map[liveKey]*unstructured.Unstructured, map[schema.GroupVersionKind]bool, map[schema.GroupVersionKind]error, error) {
	live := map[liveKey]*unstructured.Unstructured{}
	notServed := map[schema.GroupVersionKind]bool{}
	unlisted := map[schema.GroupVersionKind]error{}
	listed := map[schema.GroupResource]error{}
	for _, t := range types {
		gvk := gvkOf(t)
		if notServed[gvk] || unlisted[gvk] != nil {
			continue
		}
		m, err := a.Map(ctx, gvk)
		var ns *members.NotServedError
		switch {
		case errors.As(err, &ns):
			notServed[gvk] = true
			continue
		case err != nil:
			return nil, nil, nil, members.RequestError(err)
		}
		if err, done := listed[m.Resource.GroupResource()]; done {
			if err != nil {
				unlisted[gvk] = err
			}
			continue
		}
		items, err := a.List(ctx, m, members.ListOptions{LabelSelector: federation.ManagedBySelector, Namespace: namespace})
		if err != nil {
			err = fmt.Errorf("list %s: %w", m.Resource.GroupResource(), members.RequestError(err))
			if !members.Refused(ctx, err) {
				return nil, nil, nil, err
			}
			listed[m.Resource.GroupResource()], unlisted[gvk] = err, err
			continue
		}
		listed[m.Resource.GroupResource()] = nil
		for i := range items {
			obj := &items[i]
			ns := obj.GetNamespace()
			if !m.Namespaced {
				ns = ""
			}
			live[liveKey{gvk.Group, obj.GetKind(), ns, obj.GetName()}] = obj
		}
	}
	return live, notServed, unlisted, nil
}

func getObject(ctx context.Context, a members.Client, gvk schema.GroupVersionKind, namespace, name string) (*unstructured.Unstructured, error) {
	m, err := a.Map(ctx, gvk)
	if err != nil {
		return nil, err
	}
	obj, err := a.Get(ctx, m, namespace, name)
	return obj, err
}

// readiness fills in what kstatus says of obj, its replica counts and
// when fedctl last changed it.
func readiness(st *ClusterStatus, obj *unstructured.Unstructured) {
	st.LastUpdateTime = appliedTime(obj)
	res, err := kstatus.Compute(obj)
	switch {
	case err != nil:
		st.Readiness, st.ReadinessMessage = Unknown, err.Error()
	default:
		st.Readiness, st.ReadinessMessage = string(res.Status), res.Message
	}
	if d := replicas(obj.Object); d != nil {
		st.DesiredReplicas = d
		ready, _, _ := unstructured.NestedInt64(obj.Object, "status", "readyReplicas")
		st.ReadyReplicas = &ready
	}
}

// replicas is spec.replicas, or nil for an object without one.
func replicas(obj map[string]any) *int64 {
	v, ok, err := unstructured.NestedFieldNoCopy(obj, "spec", "replicas")
	if !ok || err != nil {
		return nil
	}
	var n int64
	switch x := v.(type) {
	case int64:
		n = x
	case float64:
		n = int64(x)
	case int:
		n = int64(x)
	default:
		return nil
	}
	return &n
}

func refOf(obj map[string]any) *ObjectRef {
	u := unstructured.Unstructured{Object: obj}
	return &ObjectRef{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// appliedTime is the time of the server-side apply that owns fedctl's
// applied-hash annotation on obj, whatever its field manager is called
// (--field-manager), in RFC 3339 UTC; "" when there is none.
func appliedTime(obj *unstructured.Unstructured) string {
	var latest string
	for _, mf := range obj.GetManagedFields() {
		if mf.Operation != metav1.ManagedFieldsOperationApply || mf.FieldsV1 == nil || mf.Time == nil {
			continue
		}
		if !strings.Contains(string(mf.FieldsV1.Raw), `"f:`+federation.HashAnnotation+`"`) {
			continue
		}
		if t := mf.Time.UTC().Format(time.RFC3339); t > latest {
			latest = t
		}
	}
	return latest
}
