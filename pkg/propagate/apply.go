package propagate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/drift"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

func (s *memberSync) applyAll(ctx context.Context, items []*item) {
	s.scan(ctx, items)
	one := func(it *item) {
		if it.mapped && it.result.Action != Failed {
			if notAttempted(ctx, it.result) {
				return
			}
			s.apply(ctx, it)
		}
		s.emit(*it.result)
	}
	// For a type not yet seen with a metadata.generation, one object goes
	// first: its response says whether the type has generations, and the
	// rest then record theirs in the create itself (expectedGeneration)
	// instead of in a second write each, however many are in flight.
	probes, rest := s.generationProbes(items)
	s.parallel(ctx, len(probes), func(i int) { one(probes[i]) })
	s.parallel(ctx, len(rest), func(i int) { one(rest[i]) })
}

// generationProbes splits items into one object of each type whose
// generations are not known yet, when more of that type follow, and the
// rest.
func (s *memberSync) generationProbes(items []*item) (probes, rest []*item) {
	s.mu.Lock()
	defer s.mu.Unlock()
	count := map[schema.GroupResource]int{}
	for _, it := range items {
		if it.mapped {
			count[it.mapping.Resource.GroupResource()]++
		}
	}
	probed := map[schema.GroupResource]bool{}
	for _, it := range items {
		gr := it.mapping.Resource.GroupResource()
		if it.mapped && count[gr] > 1 && !s.generations[gr] && !probed[gr] && it.result.Action != Failed {
			probed[gr] = true
			probes = append(probes, it)
			continue
		}
		rest = append(rest, it)
	}
	return probes, rest
}

// notAttempted marks r not attempted when ctx's deadline (--deadline, or
// the member's budget) has passed, and says whether it did. Such objects
// are reported together, one line per member, never one each.
func notAttempted(ctx context.Context, r *ObjectResult) bool {
	if _, ok := members.DeadlineReached(ctx); !ok {
		return false
	}
	r.Action, r.Reason, r.Error = Failed, ReasonDeadlineReached, NotAttemptedDeadline
	return true
}

// NotAttemptedDeadline is the error of the objects not attempted because
// the deadline passed (ReasonDeadlineReached).
const NotAttemptedDeadline = "not attempted: deadline reached"

// emit hands r to Options.OnResult, if any.
func (s *memberSync) emit(r ObjectResult) {
	if s.in.OnResult == nil || r.Action == "" {
		return
	}
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	if !s.abandoned {
		s.in.OnResult(s.cluster, r)
	}
}

// expectedGeneration is the metadata.generation a create of it will
// leave, for types seen with one: 1. Recorded in the apply itself, it saves
// recordGeneration's second write for every new object; the response says
// whether it was right, and recordGeneration corrects it when it was not.
//
// Only creates carry it: on an existing object the annotation is owned by
// the merge patch of recordGeneration (an Update, which server-side apply
// counts as another manager even under fedctl's name), so an apply that set
// it to a new value would conflict with fedctl itself.
func (s *memberSync) expectedGeneration(it *item, live *unstructured.Unstructured) (int64, bool) {
	if live != nil {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return 1, s.generations[it.mapping.Resource.GroupResource()]
}

// apply brings one object up to date, sending nothing when it is.
func (s *memberSync) apply(ctx context.Context, it *item) {
	res := it.result
	live := s.live[keyOf(it.mapping, res.Namespace, res.Name)]
	adopting := false
	needGet := live == nil
	if meta, scanned := s.scannedObject(it.mapping, res.Namespace, res.Name); live == nil && scanned {
		switch {
		case meta == nil:
			needGet = false // a new object
		case federation.HandsOff(meta):
			res.Action, res.Reason = Skipped, ReasonManagedLabelFalse
			res.Error = fmt.Sprintf("labelled %s: \"false\"; not touched", federation.ManagedLabel)
			return
		case !federation.Owned(meta) && !s.in.Adopt:
			it.fail(ReasonAlreadyExists, errors.New("already exists and was not created by fedctl; use --adopt to take it over"))
			return
		}
	}
	if needGet {
		// Not among fedctl's objects; one GET tells a new object from one
		// created by someone else.
		got, err := s.client.Get(ctx, it.mapping, res.Namespace, res.Name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			it.fail(reasonOf(err), fmt.Errorf("get: %w", members.RequestErrorIn(ctx, err)))
			return
		case federation.HandsOff(got):
		default:
			if !federation.Owned(got) && !s.in.Adopt {
				it.fail(ReasonAlreadyExists, errors.New("already exists and was not created by fedctl; use --adopt to take it over"))
				return
			}
			live, adopting = got, !federation.Owned(got)
		}
		if got != nil && federation.HandsOff(got) {
			live = got
		}
	}
	if live != nil && federation.HandsOff(live) {
		res.Action, res.Reason = Skipped, ReasonManagedLabelFalse
		res.Error = fmt.Sprintf("labelled %s: \"false\"; not touched", federation.ManagedLabel)
		return
	}
	if live == nil && s.cordoned() {
		res.Action, res.Reason = Skipped, ReasonCordoned
		res.Error = "the member is cordoned: no new objects (fedctl uncordon lifts it)"
		return
	}
	desired, hashed := s.desired(it, live)
	hash, err := drift.Hash(hashed)
	if err != nil {
		it.fail("", err)
		return
	}
	// Compare sends every object: only the API server can say what other
	// writers changed since.
	if live != nil && !adopting && drift.UpToDate(live, hashed, hash, retains(it.target)) && !s.mode.sendUnchanged {
		res.Action = Unchanged
		return
	}
	obj := &unstructured.Unstructured{Object: desired}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[federation.HashAnnotation] = hash
	if gen, ok := s.expectedGeneration(it, live); ok && !adopting {
		ann[federation.GenerationAnnotation] = strconv.FormatInt(gen, 10)
	}
	obj.SetAnnotations(ann)
	var applied *unstructured.Unstructured
	wo := s.writeOptions()
	// Adopting takes the object over, fields included: its fields belong to
	// whoever created it, and would otherwise all conflict.
	wo.Force = wo.Force || adopting
	applied, err = s.client.Apply(ctx, it.mapping, obj, wo)
	if err != nil && s.mode.dryRun && members.NamespaceNotFound(err) && s.dryNamespace(res.Namespace) {
		// A server-side dry run creates no Namespace, so nothing can check
		// the objects that go in a new one.
		res.Action, res.Reason = Skipped, ReasonNamespaceNotCreated
		res.Error = "its namespace is not created in a dry run, so it cannot be checked"
		s.compared(*res, nil, obj)
		return
	}
	if err != nil {
		reason := reasonOf(err)
		if apierrors.IsConflict(err) {
			err = fmt.Errorf("%w; use --force-conflicts to take these fields over", err)
		}
		it.fail(reason, members.RequestErrorIn(ctx, err))
		return
	}
	res.Action = Configured
	if live == nil {
		res.Action = Created
	}
	if applied.GetGeneration() > 0 {
		s.mu.Lock()
		s.generations[it.mapping.Resource.GroupResource()] = true
		s.mu.Unlock()
	}
	if s.mode.dryRun {
		if res.Kind == "Namespace" && live == nil {
			s.mu.Lock()
			s.dryNamespaces[res.Name] = true
			s.mu.Unlock()
		}
		if s.mode.compare && live != nil && sameObject(live, applied) {
			res.Action = Unchanged
		}
		s.compared(*res, live, applied)
		return
	}
	if err := s.recordGeneration(ctx, it, applied); err != nil {
		it.fail("", fmt.Errorf("record generation: %w", members.RequestErrorIn(ctx, err)))
	}
}

// reasonOf is the report's reason for a request that failed with err, ""
// when the error says it all.
func reasonOf(err error) string {
	switch {
	case apierrors.IsConflict(err):
		return ReasonConflict
	case apierrors.IsForbidden(err):
		return ReasonForbidden
	}
	return ""
}

// recordGeneration records in federation.GenerationAnnotation the generation the
// apply left the object at, so that the next run can tell fedctl's own spec
// changes from anybody else's. It is a second write, but only for objects
// whose generation moved, that is whose spec fedctl just changed (or, for a
// Deployment, whose annotations it changed).
//
// Some types count the annotation change itself as a new generation
// (Deployment bumps metadata.generation when its annotations change), so
// the patch's response is checked: when it moved the generation, the value
// is written again as one more than the response, which is what that
// second patch leaves. What is learnt is kept per type for the run, so
// further objects of the type need one patch. At most two patches are sent.
func (s *memberSync) recordGeneration(ctx context.Context, it *item, applied *unstructured.Unstructured) error {
	gen := applied.GetGeneration()
	recorded, has := applied.GetAnnotations()[federation.GenerationAnnotation]
	if gen == 0 && has {
		// Expected where there is none (see expectedGeneration): a value
		// left there would make every later run apply again.
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{federation.GenerationAnnotation: nil}}})
		_, err := s.client.MergePatch(ctx, it.mapping, it.result.Namespace, it.result.Name, patch, s.writeOptions())
		return err
	}
	if gen == 0 || recorded == strconv.FormatInt(gen, 10) {
		return nil
	}
	gr := it.mapping.Resource.GroupResource()
	want := gen
	if s.bumpsOnAnnotations(gr, false, false) {
		want = gen + 1
	}
	prev := gen
	for range 2 {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{federation.GenerationAnnotation: strconv.FormatInt(want, 10)}}})
		patched, err := s.client.MergePatch(ctx, it.mapping, it.result.Namespace, it.result.Name, patch, s.writeOptions())
		if err != nil {
			return err
		}
		got := patched.GetGeneration()
		if got == want {
			return nil
		}
		bumped := got != prev
		s.bumpsOnAnnotations(gr, true, bumped)
		want, prev = got, got
		if bumped {
			want = got + 1
		}
	}
	return nil // the next run sees a generation mismatch and applies again
}

// bumpsOnAnnotations reports what was learnt about gr, after recording
// value when set.
func (s *memberSync) bumpsOnAnnotations(gr schema.GroupResource, set, value bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if set {
		s.bumps[gr] = value
	}
	return s.bumps[gr]
}

// desired returns what to apply and what to hash. When the target retains
// replicas (spec.retainReplicas, and no override or RSP sets them for this
// member: render.Target.RetainReplicas), an existing object keeps its live
// spec.replicas (an HPA's, say): fedctl applies the live value, which never
// conflicts and never resets it, where leaving the field out would make
// server-side apply remove it (and the API server default it) whenever
// fedctl was its only owner. The hash leaves replicas out, so scaling alone never causes a
// write.
//
// With an ApplySet, the object also carries the set's part-of label.
func (s *memberSync) desired(it *item, live *unstructured.Unstructured) (apply, hashed map[string]any) {
	apply = runtime.DeepCopyJSON(it.target.Object)
	if s.applySet != nil {
		u := &unstructured.Unstructured{Object: apply}
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[federation.ApplySetPartOfLabel] = s.applySet.set.ID()
		u.SetLabels(labels)
	}
	if !it.target.RetainReplicas {
		return apply, apply
	}
	hashed = runtime.DeepCopyJSON(apply)
	unstructured.RemoveNestedField(hashed, "spec", "replicas")
	if live != nil {
		if r, ok, _ := unstructured.NestedFieldNoCopy(live.Object, "spec", "replicas"); ok {
			_ = unstructured.SetNestedField(apply, r, "spec", "replicas")
		} else {
			unstructured.RemoveNestedField(apply, "spec", "replicas")
		}
	}
	return apply, hashed
}

// retains says whether the member keeps its live spec.replicas for t:
// spec.retainReplicas, unless an override (an RSP's planned count
// included) sets the field for that member, as KubeFed applies overrides
// after retention (kubefed#1278). render decides it per member.
func retains(t render.Target) bool { return t.RetainReplicas }
