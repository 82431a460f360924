package propagate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// preflight maps the type of every item before anything is written
// (kubefed#1241): a member that lacks a type fails as a whole, naming every
// federated object that needs it. Types defined by a CRD among the items
// are mapped after that CRD is created.
func (s *memberSync) preflight(ctx context.Context, items []*item) error {
	fromCRDs := map[schema.GroupKind]bool{}
	for _, it := range items {
		if it.gvk.GroupKind() == (schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}) {
			group, _, _ := unstructured.NestedString(it.target.Object, "spec", "group")
			kind, _, _ := unstructured.NestedString(it.target.Object, "spec", "names", "kind")
			fromCRDs[schema.GroupKind{Group: group, Kind: kind}] = true
		}
	}
	var missing []string
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return members.RequestErrorIn(ctx, err)
		}
		m, err := s.mapType(ctx, it.gvk)
		var ns *members.NotServedError
		switch {
		case errors.As(err, &ns) && fromCRDs[it.gvk.GroupKind()]:
			continue // mapped once its CRD is established
		case errors.As(err, &ns):
			missing = append(missing, fmt.Sprintf("%s %s: %v", it.target.Source.Kind, objectName(it.target.Source), err))
			continue
		case err != nil:
			return members.RequestErrorIn(ctx, err)
		}
		it.mapping, it.mapped = m, true
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, "; "))
	}
	return nil
}

// mapType resolves a kind through the member's discovery, which ctx bounds
// (a Ctrl-C or the member's --timeout ends it at once).
func (s *memberSync) mapType(ctx context.Context, gvk schema.GroupVersionKind) (members.Mapping, error) {
	return s.client.Map(ctx, gvk)
}

// list reads, with one label-selected LIST per type, every object fedctl
// manages in the member among the types of the input and the extra
// group-kinds (those an ApplySet parent lists). A type the member does not
// serve holds nothing and is not listed.
//
// A type whose objects cannot be read (its LIST is forbidden, or its API
// group failed discovery, as an unavailable aggregated API does) is
// recorded in s.unread rather than failing the member: the member still
// gets the types it may write, objects of an unread type in the input are
// looked up one by one, and nothing is pruned in the member (see
// removeAll). Any other failure fails the member, so nothing is removed on
// the strength of a partial listing.
func (s *memberSync) list(ctx context.Context, extra sets.Set[schema.GroupKind]) error {
	seen := map[schema.GroupResource]bool{}
	var mappings []members.Mapping
	var kinds []schema.GroupKind // of each mapping
	var gvks []schema.GroupVersionKind
	for _, p := range s.in.Result.Placed {
		if p.Object.Rules.PlacementOnly {
			continue // never propagated: fedctl has nothing of it there
		}
		gvks = append(gvks, schema.GroupVersionKind{Group: p.Type.Group, Version: p.Type.Version, Kind: p.Type.Kind})
	}
	extraKinds := extra.UnsortedList()
	slices.SortFunc(extraKinds, func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) })
	for _, gk := range extraKinds {
		gvks = append(gvks, gk.WithVersion("")) // the member's preferred version
	}
	for _, gvk := range gvks {
		m, err := s.mapType(ctx, gvk)
		var ns *members.NotServedError
		var gde *members.GroupDiscoveryError
		if errors.As(err, &ns) && gvk.Version != "" {
			// Not at the input's version, but maybe at another: what
			// fedctl applied there before is still to be read (to be
			// removed, pruned or deleted), at the member's preferred one.
			m, err = s.mapType(ctx, gvk.GroupKind().WithVersion(""))
		}
		switch {
		case errors.As(err, &ns):
			continue
		case errors.As(err, &gde) && ctx.Err() == nil:
			s.unreadKind(gvk.GroupKind(), gvk.GroupKind().String()+": "+err.Error())
			continue
		case err != nil:
			return members.RequestErrorIn(ctx, err)
		}
		if !seen[m.Resource.GroupResource()] {
			seen[m.Resource.GroupResource()] = true
			mappings = append(mappings, m)
			kinds = append(kinds, gvk.GroupKind())
		}
	}
	selector := federation.ManagedBySelector
	lists := make([][]unstructured.Unstructured, len(mappings))
	errs := make([]error, len(mappings))
	s.parallel(ctx, len(mappings), func(i int) {
		var err error
		lists[i], err = s.client.List(ctx, mappings[i], members.ListOptions{LabelSelector: selector, Namespace: s.in.Result.Namespace})
		switch {
		case apierrors.IsForbidden(err):
			s.unreadKind(kinds[i], fmt.Sprintf("%s: %v", kinds[i], err))
		case err != nil:
			errs[i] = fmt.Errorf("list %s: %w", mappings[i].Resource.GroupResource(), members.RequestErrorIn(ctx, err))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, m := range mappings {
		for j := range lists[i] {
			obj := &lists[i][j]
			s.live[keyOf(m, obj.GetNamespace(), obj.GetName())] = obj
			if obj.GetGeneration() > 0 {
				s.generations[m.Resource.GroupResource()] = true
			}
		}
	}
	return nil
}

// unreadKind records that fedctl's objects of gk in the member could not
// be read, and why.
func (s *memberSync) unreadKind(gk schema.GroupKind, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unread[gk] = why
}

// unreadReason says, when some kinds could not be read, what the member's
// report must say: which, why, and what was not done for want of knowing
// them. "" when everything was read.
func (s *memberSync) unreadReason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.unread) == 0 {
		return ""
	}
	var whys []string
	for _, gk := range slices.SortedFunc(maps.Keys(s.unread), func(a, b schema.GroupKind) int { return strings.Compare(a.String(), b.String()) }) {
		whys = append(whys, s.unread[gk])
	}
	not := "objects of these types that are no longer placed here were not looked for"
	switch {
	case s.mode.deleteOptions: // fedctl delete
		not = "objects of these types were not deleted here"
	case s.pruning():
		not = "nothing was pruned here, and " + not
	}
	return "fedctl's objects of some types could not be read, so " + not + ": " + strings.Join(whys, "; ")
}

// pruning says whether this sync prunes an ApplySet.
func (s *memberSync) pruning() bool { return s.applySet != nil && s.mode.prune }

// scanThreshold is how many objects of one type and namespace that
// fedctl does not manage yet make scan list that namespace rather than GET
// each object.
const scanThreshold = 2

// scan reads, with one metadata-only LIST per type and namespace, what
// exists where items that are not among fedctl's objects are about to be
// applied, when there are scanThreshold or more of them: a first apply of
// 300 Deployments then costs one LIST instead of 300 GETs to tell new
// objects from someone else's. A LIST that fails only means GETs after all.
func (s *memberSync) scan(ctx context.Context, items []*item) {
	count := map[liveKey]int{}
	mappings := map[liveKey]members.Mapping{}
	var keys []liveKey
	for _, it := range items {
		if !it.mapped || it.result.Action == Failed || s.live[keyOf(it.mapping, it.result.Namespace, it.result.Name)] != nil {
			continue
		}
		k := keyOf(it.mapping, it.result.Namespace, "")
		if s.isScanned(k) {
			continue
		}
		if count[k] == 0 {
			keys = append(keys, k)
			mappings[k] = it.mapping
		}
		count[k]++
	}
	keys = slices.DeleteFunc(keys, func(k liveKey) bool { return count[k] < scanThreshold })
	s.parallel(ctx, len(keys), func(i int) {
		k := keys[i]
		metas, err := s.client.ListMetadata(ctx, mappings[k], members.ListOptions{Namespace: k.namespace})
		if err != nil {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for j := range metas {
			s.existing[keyOf(mappings[k], metas[j].Namespace, metas[j].Name)] = &metas[j]
		}
		s.scanned[k] = true
	})
}

func (s *memberSync) isScanned(k liveKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scanned[k]
}

// scannedObject says, when scan listed the object's type and namespace,
// whether the object exists (meta non-nil) there.
func (s *memberSync) scannedObject(m members.Mapping, namespace, name string) (meta *metav1.PartialObjectMetadata, scanned bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.scanned[keyOf(m, namespace, "")] {
		return nil, false
	}
	return s.existing[keyOf(m, namespace, name)], true
}

// readLive reads what the member holds before a sync that may remove: the
// ApplySet's parent (with --prune), then fedctl's objects of the input's
// kinds and of the kinds the parent lists.
func (s *memberSync) readLive(ctx context.Context) error {
	var setKinds sets.Set[schema.GroupKind]
	if s.in.ApplySet != nil {
		if err := s.readApplySet(ctx); err != nil {
			return err
		}
		setKinds = s.applySet.groupKinds
	}
	return s.list(ctx, setKinds)
}
