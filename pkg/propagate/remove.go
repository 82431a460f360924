package propagate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// foreignContents says why namespace must not be deleted on de-placement
// or pruning, or "" when it may: deleting a Namespace deletes everything in
// it, and fedctl deletes nothing it did not create. What the namespace
// makes by itself (objects controlled by another object there, the default
// ServiceAccount, kube-root-ca.crt, events, endpoints) does not count;
// fedctl's own objects (by then removed, when the input de-placed them
// too) do not either.
// fedctl delete, an explicit request, is not held back.
func (s *memberSync) foreignContents(ctx context.Context, namespace string) string {
	objs, err := s.client.NamespaceContents(ctx, namespace)
	if err != nil {
		return fmt.Sprintf("not deleted: cannot tell what the namespace holds: %v", members.RequestErrorIn(ctx, err))
	}
	// An owner in the namespace makes what it controls (a Deployment its
	// ReplicaSets); an object controlled from outside (a cluster-scoped
	// owner) was not made by the namespace's own objects. A kind the
	// member no longer serves has no owner left: the garbage collector
	// takes what it controlled.
	scopes := map[schema.GroupKind]bool{}
	clusterScoped := func(gk schema.GroupKind) (bool, error) {
		if cluster, ok := scopes[gk]; ok {
			return cluster, nil
		}
		m, err := s.client.Map(ctx, gk.WithVersion(""))
		var notServed *members.NotServedError
		switch {
		case errors.As(err, &notServed):
			m.Namespaced = true
		case err != nil:
			return false, err
		}
		scopes[gk] = !m.Namespaced
		return !m.Namespaced, nil
	}
	var foreign []string
	for i := range objs {
		o := &objs[i]
		if s.removedWith(o) {
			continue
		}
		made, err := federation.NamespaceMade(o, clusterScoped)
		if err != nil {
			return fmt.Sprintf("not deleted: cannot tell where the owner of %s %s is: %v", o.GetKind(), o.GetName(), members.RequestErrorIn(ctx, err))
		}
		if made {
			continue
		}
		foreign = append(foreign, anotherInputs(o, o.GetKind()+" "+o.GetName()))
	}
	if len(foreign) == 0 {
		return ""
	}
	return fmt.Sprintf("not deleted: the namespace holds %d object(s) fedctl did not create, or another input's (%s), which deleting it would delete too; remove them first, or give the FederatedNamespace kubefed.io/orphan: \"true\" to leave the namespace there", len(foreign), firstThree(foreign))
}

// removedWith says whether o, an object fedctl made, may go with what
// holds it (its namespace, its CRD): one of this run's input (de-placed
// with it, and removed before it), one of the ApplySet this run prunes, or
// one being deleted already. An object of another input fedctl applied
// (not this run's, not its set's) keeps it, as another tool's does: that
// input still places it there. One marked kubefed.io/managed: "false" is
// never fedctl's to remove.
func (s *memberSync) removedWith(o metav1.Object) bool {
	if !federation.Owned(o) || federation.HandsOff(o) {
		return false
	}
	if _, ok := s.placed[o.GetAnnotations()[federation.SourceAnnotation]]; ok || o.GetDeletionTimestamp() != nil {
		return true
	}
	return s.pruning() && o.GetLabels()[federation.ApplySetPartOfLabel] == s.applySet.set.ID()
}

// anotherInputs is name, said to be another input's when o is fedctl's:
// what keeps a namespace or a CRD without being another tool's.
func anotherInputs(o metav1.Object, name string) string {
	if federation.Owned(o) && !federation.HandsOff(o) {
		return name + " (another input's)"
	}
	return name
}

// foreignResources says why crd must not be deleted on de-placement or
// pruning, or "" when it may: deleting a CustomResourceDefinition deletes
// every custom resource of it in the member, and fedctl deletes nothing
// it did not create. A resource fedctl applied does not count.
func (s *memberSync) foreignResources(ctx context.Context, crd *unstructured.Unstructured) string {
	group, _, _ := unstructured.NestedString(crd.Object, "spec", "group")
	resource, _, _ := unstructured.NestedString(crd.Object, "spec", "names", "plural")
	scope, _, _ := unstructured.NestedString(crd.Object, "spec", "scope")
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	version := ""
	for _, v := range versions {
		v, _ := v.(map[string]any)
		name, _ := v["name"].(string)
		if served, _ := v["served"].(bool); served && (version == "" || v["storage"] == true) {
			version = name
		}
	}
	if version == "" {
		// what it stored under a version no longer served is still
		// there, and goes with it
		return "not deleted: it serves no version, so what custom resources it holds cannot be read"
	}
	m := members.Mapping{Resource: schema.GroupVersionResource{Group: group, Version: version, Resource: resource}, Namespaced: scope != "Cluster"}
	items, err := s.client.ListMetadata(ctx, m, members.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return "" // not served (yet, or any more)
	case err != nil:
		return fmt.Sprintf("not deleted: cannot tell which %s it holds: %v", m.Resource.GroupResource(), members.RequestErrorIn(ctx, err))
	}
	var foreign []string
	for i := range items {
		o := &items[i]
		if s.removedWith(o) {
			continue
		}
		name := o.GetName()
		if o.GetNamespace() != "" {
			name = o.GetNamespace() + "/" + name
		}
		foreign = append(foreign, anotherInputs(o, name))
	}
	if len(foreign) == 0 {
		return ""
	}
	return fmt.Sprintf("not deleted: the member holds %d custom resource(s) of it fedctl did not create, or another input's (%s), which deleting the CustomResourceDefinition would delete too; remove them first, or give the federated CRD kubefed.io/orphan: \"true\" to leave it there", len(foreign), firstThree(foreign))
}

// firstThree lists names, sorted: the first three and how many more.
func firstThree(names []string) string {
	slices.Sort(names)
	shown := strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
		shown += fmt.Sprintf(" and %d more", len(names)-3)
	}
	return shown
}

// removal is one object to remove from the member.
type removal struct {
	obj     *unstructured.Unstructured
	mapping members.Mapping
	// placed is the federated object in the input it belongs to; zero
	// for an object pruned from an ApplySet.
	placed render.Placed
	result ObjectResult
}

// orphan says whether the object is to be unmarked rather than deleted.
func (r *removal) orphan() bool {
	return r.placed.Object != nil && r.placed.Object.Annotations[federation.OrphanAnnotation] == "true"
}

// deletes says whether removing it sends a DELETE.
func (r *removal) deletes() bool {
	return r.result.Action == "" && !federation.HandsOff(r.obj) && !r.orphan() && r.obj.GetDeletionTimestamp() == nil
}

// removeUnplaced deletes, in reverse install order, the objects of
// federated objects in the input that are no longer placed in the member
// (KubeFed's pkg/controller/sync/controller.go removeUnwantedClusters), or strips fedctl's markers from them when the federated object
// says kubefed.io/orphan: "true". Objects of federated objects that are not
// in the input are left alone, unless they are part of the ApplySet being
// pruned: those are deleted. MaxDeletions bounds the deletions.
//
// An object placed nowhere for want of its FederatedNamespace in the input
// is left alone, as KubeFed leaves it (NamespaceNotFederated): applying a
// few files of a directory must not delete what they hold.
//
// A cordoned member keeps what runs there: nothing is removed for not being
// placed there any more (an object left out of the input is still pruned).
func (s *memberSync) removeUnplaced(ctx context.Context) []ObjectResult {
	cordoned := s.cordoned()
	return s.removeAll(ctx, func(p render.Placed) bool {
		return !slices.Contains(p.Clusters, s.cluster) && !p.NamespaceNotFederated && !cordoned
	})
}

// removeAll removes, in reverse install order, fedctl's objects of the
// federated objects in the input for which remove returns true, and with
// an ApplySet the objects of the set whose federated object is not in the
// input.
func (s *memberSync) removeAll(ctx context.Context, remove func(render.Placed) bool) []ObjectResult {
	var removals []*removal
	incomplete := s.unreadReason() != ""
	for _, k := range slices.SortedFunc(maps.Keys(s.live), compareKeys) {
		obj := s.live[k]
		if !federation.Owned(obj) {
			continue
		}
		source := obj.GetAnnotations()[federation.SourceAnnotation]
		p, inInput := s.placed[source]
		if inInput && p.Object.Rules.PlacementOnly {
			continue // never propagated, so never removed
		}
		pruned := !inInput && s.pruning() && obj.GetLabels()[federation.ApplySetPartOfLabel] == s.applySet.set.ID()
		if !pruned && (!inInput || !remove(p)) {
			continue
		}
		m, err := s.client.Map(ctx, obj.GroupVersionKind())
		r := &removal{obj: obj, mapping: m, placed: p, result: ObjectResult{
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
			FederatedObject: source,
		}}
		if pruned {
			r.result.Reason = ReasonPruned
			switch {
			case incomplete:
				// Pruning needs to know every object of the set: what
				// could not be read might be what the input still holds.
				r.result.Action, r.result.Reason = Skipped, ReasonNotPruned
				r.result.Error = "not pruned: some of fedctl's objects in this cluster could not be read (see the cluster's error)"
			case s.failed > 0:
				// As kubectl apply --prune, which prunes only after every
				// apply succeeded: what failed may be what replaces this
				// object (a renamed Deployment), and pruning now would
				// leave the member with neither.
				r.result.Action, r.result.Reason = Skipped, ReasonNotPruned
				r.result.Error = fmt.Sprintf("not pruned: %d of the input's objects failed in this cluster; prune runs once they apply", s.failed)
			}
		}
		if err != nil {
			r.result.Action, r.result.Error = Failed, err.Error()
		}
		removals = append(removals, r)
	}
	s.limitDeletions(removals)
	slices.SortStableFunc(removals, func(x, y *removal) int { return rank(y.result.Kind) - rank(x.result.Kind) })
	for start := 0; start < len(removals); {
		end := start + 1
		for end < len(removals) && rank(removals[end].result.Kind) == rank(removals[start].result.Kind) {
			end++
		}
		batch := removals[start:end]
		s.parallel(ctx, len(batch), func(i int) {
			if batch[i].result.Action == "" {
				if notAttempted(ctx, &batch[i].result) {
					return
				}
				s.remove(ctx, batch[i])
			}
			s.emit(batch[i].result)
		})
		start = end
	}
	out := make([]ObjectResult, len(removals))
	for i, r := range removals {
		out[i] = r.result
	}
	return out
}

// limitDeletions fails every deletion when there are more than
// MaxDeletions: a wrong -f path or a placement typo must not empty a
// member. Orphaning and skipping go ahead.
func (s *memberSync) limitDeletions(removals []*removal) {
	if s.in.MaxDeletions == nil {
		return
	}
	n := 0
	for _, r := range removals {
		if r.deletes() {
			n++
		}
	}
	if n <= *s.in.MaxDeletions {
		return
	}
	msg := fmt.Sprintf("not deleted: %d objects would be deleted in this cluster, more than --max-deletions=%d; check the input, then raise --max-deletions to allow it", n, *s.in.MaxDeletions)
	for _, r := range removals {
		if r.deletes() {
			// the reason is what happened: nothing was deleted, pruned or not
			r.result.Action, r.result.Reason, r.result.Error = Failed, ReasonTooManyDeletions, msg
		}
	}
}

func (s *memberSync) remove(ctx context.Context, r *removal) {
	res := &r.result
	if federation.HandsOff(r.obj) {
		res.Action, res.Reason = Skipped, ReasonManagedLabelFalse
		res.Error = fmt.Sprintf("labelled %s: \"false\"; not removed", federation.ManagedLabel)
		return
	}
	if r.obj.GetDeletionTimestamp() != nil && !r.orphan() {
		// Being deleted already (finalizers pending): nothing to send.
		res.Action, res.Reason = Deleted, ReasonTerminating
		return
	}
	if r.orphan() || s.mode.release {
		patch, opts := unmarkPatch, s.writeOptions()
		if s.mode.release {
			// Sent as ReleaseManager, so that the request itself leaves no
			// entry of fedctl's behind.
			patch, opts.FieldManager = releasePatch(r.obj, s.in.FieldManager), ReleaseManager
		}
		patched, err := s.client.MergePatch(ctx, r.mapping, res.Namespace, res.Name, patch, opts)
		for tries := 1; s.mode.release && apierrors.IsConflict(err) && tries < 5; tries++ {
			// Written since the LIST: the managedFields the patch sets
			// would drop the new writer's entry. Read it again.
			var fresh *unstructured.Unstructured
			fresh, err = s.client.Get(ctx, r.mapping, res.Namespace, res.Name)
			if err == nil && fresh.GetUID() != r.obj.GetUID() {
				// a namesake made since the LIST: the object listed is gone
				err = apierrors.NewNotFound(r.mapping.Resource.GroupResource(), res.Name)
			}
			if err == nil {
				patched, err = s.client.MergePatch(ctx, r.mapping, res.Namespace, res.Name, releasePatch(fresh, s.in.FieldManager), opts)
			}
		}
		if apierrors.IsConflict(err) {
			res.Action, res.Error = Failed, "remove fedctl's markers: written by another writer at every try; run the command again"
			return
		}
		if err != nil && !apierrors.IsNotFound(err) {
			res.Action, res.Error = Failed, fmt.Sprintf("remove fedctl's markers: %v", members.RequestErrorIn(ctx, err))
			return
		}
		res.Action = Orphaned
		if s.mode.release {
			res.Action = Released
		}
		if patched != nil {
			s.compared(*res, r.obj, patched)
		}
		return
	}
	if r.obj.GetKind() == "Namespace" && r.obj.GetAPIVersion() == "v1" && s.mode.guardContents {
		if msg := s.foreignContents(ctx, res.Name); msg != "" {
			res.Action, res.Reason, res.Error = Failed, ReasonNamespaceNotEmpty, msg
			return
		}
	}
	if r.obj.GetKind() == "CustomResourceDefinition" && r.obj.GroupVersionKind().Group == "apiextensions.k8s.io" && s.mode.guardContents {
		if msg := s.foreignResources(ctx, r.obj); msg != "" {
			res.Action, res.Reason, res.Error = Failed, ReasonCRDNotEmpty, msg
			return
		}
	}
	uid := r.obj.GetUID()
	opts := metav1.DeleteOptions{}
	if s.mode.deleteOptions && r.placed.Object != nil {
		// fedctl delete: KubeFed's kubefed.io/deleteoption, else --cascade
		// (KubeFed's delete handling); de-placement passes no options, as KubeFed's
		// removeUnwantedClusters does.
		if raw := r.placed.Object.Annotations[federation.DeleteOptionAnnotation]; raw != "" {
			if err := json.Unmarshal([]byte(raw), &opts); err != nil {
				res.Action, res.Error = Failed, fmt.Sprintf("annotation %s of %s: %v", federation.DeleteOptionAnnotation, res.FederatedObject, err)
				return
			}
		}
		if opts.PropagationPolicy == nil && s.in.Cascade != "" {
			cascade := s.in.Cascade
			opts.PropagationPolicy = &cascade
		}
	}
	if opts.Preconditions == nil {
		opts.Preconditions = &metav1.Preconditions{}
	}
	// Never delete an object created anew since the LIST, whatever else
	// kubefed.io/deleteoption asks: the UID is the listed object's (one
	// UID in an annotation could match one member's object at most).
	opts.Preconditions.UID = &uid
	if s.mode.dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := s.client.Delete(ctx, r.mapping, res.Namespace, res.Name, opts)
	if err != nil && !apierrors.IsNotFound(err) {
		res.Action, res.Error = Failed, fmt.Sprintf("delete: %v", members.RequestErrorIn(ctx, err))
		return
	}
	res.Action = Deleted
	s.compared(*res, r.obj, nil)
}

// unmarkPatch removes fedctl's labels and annotations, the ApplySet's
// part-of label included: what is left is an object like any other, which
// neither fedctl nor a kubectl prune of the set will touch again.
var unmarkPatch = func() []byte {
	data, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{federation.ManagedLabel: nil, federation.ManagedByLabel: nil, federation.ApplySetPartOfLabel: nil},
		"annotations": map[string]any{federation.SourceAnnotation: nil, federation.HashAnnotation: nil, federation.GenerationAnnotation: nil},
	}})
	return data
}()

// releasePatch is unmarkPatch that also sets managedFields to obj's
// entries of other managers: the API server takes a request's
// managedFields as they are, so fedctl's entries go. An object left with
// no entry at all would have every field given to "before-first-apply",
// with which the next owner's apply conflicts; so the release marks the
// object with ReleasedAnnotation, owned by ReleaseManager alone. The
// patch holds obj's resourceVersion: a write since obj was read is a
// conflict, not an entry of the new writer's dropped.
func releasePatch(obj *unstructured.Unstructured, manager string) []byte {
	kept := []any{map[string]any{
		"manager": ReleaseManager, "operation": "Update", "apiVersion": obj.GetAPIVersion(), "fieldsType": "FieldsV1",
		"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:annotations": map[string]any{"f:" + ReleasedAnnotation: map[string]any{}}}},
	}}
	for _, e := range obj.GetManagedFields() {
		if e.Manager == manager || e.Manager == ReleaseManager {
			continue
		}
		var m map[string]any
		data, _ := json.Marshal(e)
		_ = json.Unmarshal(data, &m)
		kept = append(kept, m)
	}
	var patch map[string]any
	_ = json.Unmarshal(unmarkPatch, &patch)
	meta := patch["metadata"].(map[string]any)
	meta["managedFields"] = kept
	if rv := obj.GetResourceVersion(); rv != "" {
		meta["resourceVersion"] = rv
	}
	meta["annotations"].(map[string]any)[ReleasedAnnotation] = "true"
	data, _ := json.Marshal(patch)
	return data
}

// ReleasedAnnotation marks an object fedctl release handed over;
// ReleaseManager owns it, and nothing else.
const (
	ReleasedAnnotation = "fedctl.io/released"
	ReleaseManager     = "fedctl-release"
)

func compareKeys(a, b liveKey) int {
	for _, c := range []int{strings.Compare(a.group, b.group), strings.Compare(a.resource, b.resource), strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name)} {
		if c != 0 {
			return c
		}
	}
	return 0
}
