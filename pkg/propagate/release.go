package propagate

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// ReasonApplySetNotEmpty says the ApplySet's parent stayed because other
// objects are still in the set.
const ReasonApplySetNotEmpty = "ApplySetNotEmpty"

// Release hands every member object of the input's federated objects over
// to whoever applies them next, in place: fedctl's labels and annotations
// (the ApplySet's part-of label included) go, and so do fedctl's
// managedFields entries, so that a server-side apply by another field
// manager takes the fields over without a conflict. Nothing is deleted or
// otherwise changed (fedctl release).
//
// With Input.ApplySet, the set's parent is removed from each member once
// the set holds nothing more there, so that no later apply --prune of the
// set acts in the member; it stays, said in the member's results, while
// other objects are still in the set or some could not be read.
func Release(ctx context.Context, in Input) *Report {
	return runMembers(ctx, in, releaseMode(in.DryRun), func(s *memberSync, mctx context.Context) ClusterResult {
		cr := s.removeInput(mctx)
		if s.in.ApplySet != nil && s.applySet != nil && s.applySet.live != nil {
			res, err := s.releaseApplySet(mctx, cr)
			if err != nil {
				cr.Error = joinErrors(cr.Error, err.Error())
			}
			cr.Objects = append(cr.Objects, res)
		}
		return cr
	})
}

// removeInput is one member's Delete or Release: it reads fedctl's
// objects there (and the ApplySet's parent and kinds, with one), then
// removes every member object of the input as the mode says.
func (s *memberSync) removeInput(ctx context.Context) ClusterResult {
	cr := ClusterResult{Cluster: s.cluster, Objects: []ObjectResult{}}
	a, err := s.in.Clients(s.cluster)
	if err != nil {
		cr.Error = members.RequestError(err).Error()
		return cr
	}
	s.client = a
	if err := s.readLive(ctx); err != nil {
		cr.Error = err.Error()
		return cr
	}
	cr.Objects = append(cr.Objects, s.removeAll(ctx, func(render.Placed) bool { return true })...)
	cr.Error = s.unreadReason()
	return cr
}

// releaseApplySet removes the set's parent when no object of the member is
// still in the set after this release, and reports what it did with it.
// It never removes it on partial knowledge: when the member's objects were
// not all read, or some of the input's failed to release.
func (s *memberSync) releaseApplySet(ctx context.Context, cr ClusterResult) (ObjectResult, error) {
	set := s.applySet.set
	res := ObjectResult{APIVersion: "v1", Kind: set.Kind(), Namespace: set.Namespace, Name: set.Name, Action: Skipped, Reason: ReasonApplySetNotEmpty}
	released := map[string]bool{}
	for _, o := range cr.Objects {
		if o.Action == Failed {
			res.Error = "the ApplySet parent stays: some objects were not released"
			return res, nil
		}
		if o.Action == Released {
			released[releasedKey(schema.FromAPIVersionAndKind(o.APIVersion, o.Kind).GroupKind(), o.Namespace, o.Name)] = true
		}
	}
	if cr.Error != "" {
		res.Error = "the ApplySet parent stays: " + cr.Error
		return res, nil
	}
	var still []string
	for _, obj := range s.live {
		if obj.GetLabels()[federation.ApplySetPartOfLabel] != set.ID() {
			continue
		}
		if !released[releasedKey(obj.GroupVersionKind().GroupKind(), obj.GetNamespace(), obj.GetName())] {
			still = append(still, ObjectResult{Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName()}.Ref())
		}
	}
	if len(still) > 0 {
		res.Error = "the ApplySet parent stays: the set still holds " + firstThree(still)
		return res, nil
	}
	// The parent read at the start, not one made since: its UID.
	uid := s.applySet.live.GetUID()
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
	if s.mode.dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := s.client.Delete(ctx, set.mapping(), set.Namespace, set.Name, opts)
	switch {
	case err == nil, apierrors.IsNotFound(err):
		res.Action, res.Reason = Deleted, ""
		return res, nil
	default:
		res.Action, res.Reason = Failed, ""
		res.Error = fmt.Sprintf("delete the ApplySet parent %s: %v", set.Ref(), members.RequestErrorIn(ctx, err))
		return res, fmt.Errorf("%s", res.Error)
	}
}

func releasedKey(gk schema.GroupKind, namespace, name string) string {
	return gk.String() + " " + namespace + "/" + name
}
