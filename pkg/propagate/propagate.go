package propagate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
)

// Defaults of Options.
const (
	DefaultConcurrency = 8
	DefaultRequests    = 8
	DefaultTimeout     = 30 * time.Second
)

// Options say how to write.
type Options struct {
	// FieldManager of every write; empty means FieldManager.
	FieldManager string
	// Force takes over fields that other managers own (--force-conflicts).
	Force bool
	// Adopt takes over existing objects that fedctl did not create (--adopt);
	// without it they are reported AlreadyExists.
	Adopt bool
	// DryRun sends every write as a server-side dry run.
	DryRun bool
	// Concurrency bounds the members synced at once; Requests bounds the
	// requests in flight to one member. Zero means the defaults.
	Concurrency int
	Requests    int
	// Timeout bounds the whole sync of one member; zero means
	// DefaultTimeout.
	Timeout time.Duration
	// Cascade is the propagation policy of Delete when the federated
	// object's kubefed.io/deleteoption does not set one; empty means the
	// API server's default (background).
	Cascade metav1.DeletionPropagation
}

// Input is what Run propagates.
type Input struct {
	Result *render.Result
	// Clusters are the members to sync; every other member is left alone.
	Clusters []string
	// Appliers returns the Applier of a member; it is called once per
	// member, in that member's goroutine.
	Appliers func(cluster string) (Applier, error)
	Options
}

// Run syncs every member of in.Clusters with what in.Result renders for it:
// applies the member objects, removes the objects of federated objects in
// the input that are no longer placed there, and reports per member and
// object. Members fail alone; Run itself never fails. When ctx ends, what
// is left is reported failed.
func Run(ctx context.Context, in Input) *Report {
	return runMembers(ctx, in, func(mctx context.Context, s *memberSync) ClusterResult { return s.run(mctx) })
}

// Delete removes from every member of in.Clusters the objects fedctl
// manages for the federated objects in in.Result, wherever they are placed
// (fedctl delete, §c.5): deleted with the options of the federated
// object's kubefed.io/deleteoption annotation or Options.Cascade, or only
// unmarked when it says kubefed.io/orphan: "true". Members fail alone, an
// unreachable one included (kubefed#1254).
func Delete(ctx context.Context, in Input) *Report {
	return runMembers(ctx, in, func(mctx context.Context, s *memberSync) ClusterResult {
		s.deleting = true
		cr := ClusterResult{Cluster: s.cluster, Objects: []ObjectResult{}}
		a, err := s.in.Appliers(s.cluster)
		if err != nil {
			cr.Error = err.Error()
			return cr
		}
		s.applier = a
		if err := s.list(mctx); err != nil {
			cr.Error = err.Error()
			return cr
		}
		cr.Objects = append(cr.Objects, s.removeAll(mctx, func(render.Placed) bool { return true })...)
		return cr
	})
}

func runMembers(ctx context.Context, in Input, sync1 func(context.Context, *memberSync) ClusterResult) *Report {
	opts := in.Options
	if opts.FieldManager == "" {
		opts.FieldManager = FieldManager
	}
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	if opts.Requests <= 0 {
		opts.Requests = DefaultRequests
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	in.Options = opts
	clusters := slices.Sorted(slices.Values(in.Clusters))
	dry := "none"
	if opts.DryRun {
		dry = "server"
	}
	report := &Report{DryRun: dry, Clusters: make([]ClusterResult, len(clusters))}
	sem := make(chan struct{}, opts.Concurrency)
	var wg sync.WaitGroup
	for i, name := range clusters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				report.Clusters[i] = ClusterResult{Cluster: name, Error: "interrupted before it started", Objects: []ObjectResult{}}
				return
			}
			defer func() { <-sem }()
			mctx, cancel := context.WithTimeout(ctx, opts.Timeout)
			defer cancel()
			report.Clusters[i] = sync1(mctx, newMemberSync(in, name))
		}()
	}
	wg.Wait()
	return report
}

// Plan is the report of --dry-run=client: every member object that would
// be applied, with no request sent. Without live state it cannot say which
// objects are new, changed or to be removed.
func Plan(res *render.Result, clusters []string) *Report {
	report := &Report{DryRun: "client"}
	for _, name := range slices.Sorted(slices.Values(clusters)) {
		cr := ClusterResult{Cluster: name, Objects: []ObjectResult{}}
		for _, t := range res.Targets {
			if t.Cluster == name {
				u := &unstructured.Unstructured{Object: t.Object}
				cr.Objects = append(cr.Objects, ObjectResult{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), FederatedObject: federation.SourceOf(t.Source), Action: Planned})
			}
		}
		cr.Objects = append(cr.Objects, renderFailures(res, name)...)
		report.Clusters = append(report.Clusters, cr)
	}
	return report
}

// renderFailures are the objects that failed to render for cluster.
func renderFailures(res *render.Result, cluster string) []ObjectResult {
	var out []ObjectResult
	for _, err := range res.Errors {
		var te *render.TargetError
		if !errors.As(err, &te) || te.Cluster != cluster {
			continue
		}
		r := ObjectResult{Kind: te.Object.Kind, Namespace: te.Object.Namespace, Name: te.Object.Name, FederatedObject: federation.SourceOf(te.Object), Action: Failed, Reason: ReasonRenderFailed, Error: te.Err.Error()}
		for _, p := range res.Placed {
			if p.Object == te.Object {
				r.APIVersion, r.Kind = p.Type.APIVersion(), p.Type.Kind
				if !p.Type.Namespaced() {
					r.Namespace = ""
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// liveKey identifies an object in one member across versions of its type.
type liveKey struct {
	group, resource, namespace, name string
}

func keyOf(m Mapping, namespace, name string) liveKey {
	if !m.Namespaced {
		namespace = ""
	}
	return liveKey{m.Resource.Group, m.Resource.Resource, namespace, name}
}

// item is one member object to apply.
type item struct {
	target  render.Target
	gvk     schema.GroupVersionKind
	mapping Mapping
	mapped  bool
	result  *ObjectResult
}

// memberSync syncs one member.
type memberSync struct {
	in      Input
	cluster string
	applier Applier
	// live holds the objects fedctl manages in the member, from the LISTs.
	live map[liveKey]*unstructured.Unstructured
	// placed maps a federated object's SourceOf to its placement.
	placed map[string]render.Placed

	mu sync.Mutex
	// deleting is set for fedctl delete.
	deleting bool

	// bumps records the types whose generation moves when only their
	// annotations change (see recordGeneration).
	bumps map[schema.GroupResource]bool
}

func newMemberSync(in Input, cluster string) *memberSync {
	placed := make(map[string]render.Placed, len(in.Result.Placed))
	for _, p := range in.Result.Placed {
		placed[federation.SourceOf(p.Object)] = p
	}
	return &memberSync{in: in, cluster: cluster, live: map[liveKey]*unstructured.Unstructured{}, placed: placed, bumps: map[schema.GroupResource]bool{}}
}

func (s *memberSync) writeOptions() WriteOptions {
	return WriteOptions{FieldManager: s.in.FieldManager, Force: s.in.Force, DryRun: s.in.DryRun}
}

func (s *memberSync) run(ctx context.Context) ClusterResult {
	cr := ClusterResult{Cluster: s.cluster, Objects: []ObjectResult{}}
	failures := renderFailures(s.in.Result, s.cluster)
	a, err := s.in.Appliers(s.cluster)
	if err != nil {
		cr.Error = err.Error()
		return cr
	}
	s.applier = a
	var items []*item
	for _, t := range s.in.Result.Targets {
		if t.Cluster != s.cluster {
			continue
		}
		u := &unstructured.Unstructured{Object: t.Object}
		it := &item{target: t, gvk: u.GroupVersionKind(), result: &ObjectResult{
			APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(),
			FederatedObject: federation.SourceOf(t.Source),
		}}
		items = append(items, it)
	}
	// Objects in install order; sorting is stable so the render order
	// (group, kind, namespace, name) stays within a kind.
	slices.SortStableFunc(items, func(x, y *item) int { return rank(x.gvk.Kind) - rank(y.gvk.Kind) })

	if err := s.preflight(ctx, items); err != nil {
		cr.Error = err.Error()
		return cr
	}
	if err := s.list(ctx); err != nil {
		cr.Error = err.Error()
		return cr
	}

	first := slices.IndexFunc(items, func(it *item) bool { return !firstPhase(it.gvk.Kind) })
	if first < 0 {
		first = len(items)
	}
	s.applyAll(ctx, items[:first])
	if s.waitForCRDs(ctx, items[:first]) {
		s.applier.Reset()
	}
	for _, it := range items[first:] {
		if it.mapped {
			continue
		}
		m, err := s.applier.Map(it.gvk)
		var ns *NotServedError
		switch {
		case errors.As(err, &ns) && s.in.DryRun:
			// A server-side dry run creates no CRD, so nothing can check
			// the objects of its type.
			it.result.Action, it.result.Reason = Skipped, ReasonCRDNotCreated
			it.result.Error = "its CRD is not created in a dry run, so it cannot be checked"
			continue
		case err != nil:
			it.fail(ReasonNotServed, fmt.Errorf("%s: %w", it.target.Source.Kind+" "+objectName(it.target.Source), err))
			continue
		}
		it.mapping, it.mapped = m, true
	}
	// The rest, one kind at a time in install order.
	for start := first; start < len(items); {
		end := start + 1
		for end < len(items) && rank(items[end].gvk.Kind) == rank(items[start].gvk.Kind) {
			end++
		}
		s.applyAll(ctx, items[start:end])
		start = end
	}
	for _, it := range items {
		cr.Objects = append(cr.Objects, *it.result)
	}
	cr.Objects = append(cr.Objects, failures...)
	cr.Objects = append(cr.Objects, s.removeUnplaced(ctx)...)
	return cr
}

func objectName(o *federation.Object) string {
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

func (it *item) fail(reason string, err error) {
	it.result.Action, it.result.Reason, it.result.Error = Failed, reason, err.Error()
}

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
			return err
		}
		m, err := s.applier.Map(it.gvk)
		var ns *NotServedError
		switch {
		case errors.As(err, &ns) && fromCRDs[it.gvk.GroupKind()]:
			continue // mapped once its CRD is established
		case errors.As(err, &ns):
			missing = append(missing, fmt.Sprintf("%s %s: %v", it.target.Source.Kind, objectName(it.target.Source), err))
			continue
		case err != nil:
			return explain(err)
		}
		it.mapping, it.mapped = m, true
	}
	if len(missing) > 0 {
		return errors.New(strings.Join(missing, "; "))
	}
	return nil
}

// list reads, with one label-selected LIST per type, every object fedctl
// manages in the member among the types of the input. A type the member
// does not serve holds nothing and is not listed. Any failure fails the
// member, so nothing is removed on the strength of a partial listing.
func (s *memberSync) list(ctx context.Context) error {
	seen := map[schema.GroupResource]bool{}
	var mappings []Mapping
	for _, p := range s.in.Result.Placed {
		m, err := s.applier.Map(schema.GroupVersionKind{Group: p.Type.Group, Version: p.Type.Version, Kind: p.Type.Kind})
		var ns *NotServedError
		switch {
		case errors.As(err, &ns):
			continue
		case err != nil:
			return explain(err)
		}
		if !seen[m.Resource.GroupResource()] {
			seen[m.Resource.GroupResource()] = true
			mappings = append(mappings, m)
		}
	}
	selector := federation.ManagedByLabel + "=" + federation.ManagedByValue
	lists := make([][]unstructured.Unstructured, len(mappings))
	errs := make([]error, len(mappings))
	s.parallel(ctx, len(mappings), func(i int) {
		errs[i] = withRetry(ctx, func() error {
			var err error
			lists[i], err = s.applier.List(ctx, mappings[i], selector)
			return err
		})
		if errs[i] != nil {
			errs[i] = fmt.Errorf("list %s: %w", mappings[i].Resource.GroupResource(), explain(errs[i]))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for i, m := range mappings {
		for j := range lists[i] {
			obj := &lists[i][j]
			s.live[keyOf(m, obj.GetNamespace(), obj.GetName())] = obj
		}
	}
	return nil
}

// parallel runs fn(0..n-1) with at most Requests at once.
func (s *memberSync) parallel(ctx context.Context, n int, fn func(i int)) {
	sem := make(chan struct{}, s.in.Requests)
	var wg sync.WaitGroup
	for i := range n {
		if ctx.Err() != nil {
			wg.Wait()
			for j := i; j < n; j++ {
				fn(j) // each fails at once on the ended context
			}
			return
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			fn(i)
		}()
	}
	wg.Wait()
}

func (s *memberSync) applyAll(ctx context.Context, items []*item) {
	s.parallel(ctx, len(items), func(i int) {
		it := items[i]
		if !it.mapped || it.result.Action == Failed {
			return
		}
		s.apply(ctx, it)
	})
}

// apply brings one object up to date, sending nothing when it is.
func (s *memberSync) apply(ctx context.Context, it *item) {
	res := it.result
	live := s.live[keyOf(it.mapping, res.Namespace, res.Name)]
	adopting := false
	if live == nil {
		// Not among fedctl's objects; one GET tells a new object from one
		// created by someone else.
		var got *unstructured.Unstructured
		err := withRetry(ctx, func() error {
			var err error
			got, err = s.applier.Get(ctx, it.mapping, res.Namespace, res.Name)
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			it.fail("", fmt.Errorf("get: %w", explain(err)))
			return
		case managedFalse(got):
		default:
			if !ours(got) && !s.in.Adopt {
				it.fail(ReasonAlreadyExists, errors.New("already exists and was not created by fedctl; use --adopt to take it over"))
				return
			}
			live, adopting = got, !ours(got)
		}
		if got != nil && managedFalse(got) {
			live = got
		}
	}
	if live != nil && managedFalse(live) {
		res.Action, res.Reason = Skipped, ReasonManagedLabelFalse
		res.Error = fmt.Sprintf("labelled %s: \"false\"; not touched", federation.ManagedLabel)
		return
	}
	desired, hashed := s.desired(it, live)
	hash, err := hashOf(hashed)
	if err != nil {
		it.fail("", err)
		return
	}
	if live != nil && !adopting && upToDate(live, hashed, hash) {
		res.Action = Unchanged
		return
	}
	obj := &unstructured.Unstructured{Object: desired}
	ann := obj.GetAnnotations()
	if ann == nil {
		ann = map[string]string{}
	}
	ann[HashAnnotation] = hash
	obj.SetAnnotations(ann)
	var applied *unstructured.Unstructured
	wo := s.writeOptions()
	// Adopting takes the object over, fields included: its fields belong to
	// whoever created it, and would otherwise all conflict.
	wo.Force = wo.Force || adopting
	err = withRetry(ctx, func() error {
		var err error
		applied, err = s.applier.Apply(ctx, it.mapping, obj, wo)
		return err
	})
	if err != nil {
		reason := ""
		if apierrors.IsConflict(err) {
			reason = ReasonConflict
			err = fmt.Errorf("%w; use --force-conflicts to take these fields over", err)
		}
		it.fail(reason, explain(err))
		return
	}
	res.Action = Configured
	if live == nil {
		res.Action = Created
	}
	if s.in.DryRun {
		return
	}
	if err := s.recordGeneration(ctx, it, applied); err != nil {
		it.fail("", fmt.Errorf("record generation: %w", explain(err)))
	}
}

// recordGeneration records in GenerationAnnotation the generation the
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
	if gen == 0 || applied.GetAnnotations()[GenerationAnnotation] == strconv.FormatInt(gen, 10) {
		return nil
	}
	gr := it.mapping.Resource.GroupResource()
	want := gen
	if s.bumpsOnAnnotations(gr, false, false) {
		want = gen + 1
	}
	prev := gen
	for range 2 {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{GenerationAnnotation: strconv.FormatInt(want, 10)}}})
		var patched *unstructured.Unstructured
		err := withRetry(ctx, func() error {
			var err error
			patched, err = s.applier.MergePatch(ctx, it.mapping, it.result.Namespace, it.result.Name, patch, s.writeOptions())
			return err
		})
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

// desired returns what to apply and what to hash. With
// spec.retainReplicas, an existing object keeps its live spec.replicas
// (an HPA's, say): fedctl applies the live value, which never conflicts and
// never resets it, where leaving the field out would make server-side apply
// remove it (and the API server default it) whenever fedctl was its only
// owner. The hash leaves replicas out, so scaling alone never causes a
// write.
func (s *memberSync) desired(it *item, live *unstructured.Unstructured) (apply, hashed map[string]any) {
	apply = runtime.DeepCopyJSON(it.target.Object)
	if rr := it.target.Source.Spec.RetainReplicas; rr == nil || !*rr {
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

// waitForCRDs waits until every CRD among items is Established, and says
// whether there was any.
func (s *memberSync) waitForCRDs(ctx context.Context, items []*item) bool {
	any := false
	for _, it := range items {
		if it.gvk.Kind != "CustomResourceDefinition" || it.result.Action == Failed || !it.mapped {
			continue
		}
		any = true
		if s.in.DryRun {
			continue
		}
		for {
			crd, err := s.applier.Get(ctx, it.mapping, "", it.result.Name)
			if err == nil && established(crd) {
				break
			}
			if err != nil && !transient(err) {
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", explain(err)))
				break
			}
			t := time.NewTimer(200 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", explain(ctx.Err())))
				return any
			case <-t.C:
			}
		}
	}
	return any
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}

// removal is one object to remove from the member.
type removal struct {
	obj     *unstructured.Unstructured
	mapping Mapping
	placed  render.Placed
	result  ObjectResult
}

// removeUnplaced deletes, in reverse install order, the objects of
// federated objects in the input that are no longer placed in the member
// (§c.4), or strips fedctl's markers from them when the federated object
// says kubefed.io/orphan: "true". Objects of federated objects that are not
// in the input are left alone.
func (s *memberSync) removeUnplaced(ctx context.Context) []ObjectResult {
	return s.removeAll(ctx, func(p render.Placed) bool { return !slices.Contains(p.Clusters, s.cluster) })
}

// removeAll removes, in reverse install order, fedctl's objects of the
// federated objects in the input for which remove returns true.
func (s *memberSync) removeAll(ctx context.Context, remove func(render.Placed) bool) []ObjectResult {
	var removals []*removal
	for _, k := range slices.SortedFunc(maps.Keys(s.live), compareKeys) {
		obj := s.live[k]
		p, ok := s.placed[obj.GetAnnotations()[federation.SourceAnnotation]]
		if !ok || !ours(obj) || !remove(p) {
			continue
		}
		m, err := s.applier.Map(obj.GroupVersionKind())
		r := &removal{obj: obj, mapping: m, placed: p, result: ObjectResult{
			APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Namespace: obj.GetNamespace(), Name: obj.GetName(),
			FederatedObject: federation.SourceOf(p.Object),
		}}
		if err != nil {
			r.result.Action, r.result.Error = Failed, err.Error()
		}
		removals = append(removals, r)
	}
	slices.SortStableFunc(removals, func(x, y *removal) int { return rank(y.result.Kind) - rank(x.result.Kind) })
	for start := 0; start < len(removals); {
		end := start + 1
		for end < len(removals) && rank(removals[end].result.Kind) == rank(removals[start].result.Kind) {
			end++
		}
		batch := removals[start:end]
		s.parallel(ctx, len(batch), func(i int) {
			if batch[i].result.Action != Failed {
				s.remove(ctx, batch[i])
			}
		})
		start = end
	}
	out := make([]ObjectResult, len(removals))
	for i, r := range removals {
		out[i] = r.result
	}
	return out
}

func (s *memberSync) remove(ctx context.Context, r *removal) {
	res := &r.result
	if managedFalse(r.obj) {
		res.Action, res.Reason = Skipped, ReasonManagedLabelFalse
		res.Error = fmt.Sprintf("labelled %s: \"false\"; not removed", federation.ManagedLabel)
		return
	}
	if r.obj.GetDeletionTimestamp() != nil && r.placed.Object.Annotations[federation.OrphanAnnotation] != "true" {
		// Being deleted already (finalizers pending): nothing to send.
		res.Action, res.Reason = Deleted, ReasonTerminating
		return
	}
	if r.placed.Object.Annotations[federation.OrphanAnnotation] == "true" {
		err := withRetry(ctx, func() error {
			_, err := s.applier.MergePatch(ctx, r.mapping, res.Namespace, res.Name, unmarkPatch, s.writeOptions())
			return err
		})
		if err != nil && !apierrors.IsNotFound(err) {
			res.Action, res.Error = Failed, fmt.Sprintf("remove fedctl's markers: %v", explain(err))
			return
		}
		res.Action = Orphaned
		return
	}
	uid := r.obj.GetUID()
	opts := metav1.DeleteOptions{}
	if s.deleting {
		// fedctl delete: KubeFed's kubefed.io/deleteoption, else --cascade
		// (§c.5); de-placement passes no options, as KubeFed (§c.4).
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
		// Never delete an object created anew since the LIST.
		opts.Preconditions = &metav1.Preconditions{UID: &uid}
	}
	if s.in.DryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	err := withRetry(ctx, func() error { return s.applier.Delete(ctx, r.mapping, res.Namespace, res.Name, opts) })
	if err != nil && !apierrors.IsNotFound(err) {
		res.Action, res.Error = Failed, fmt.Sprintf("delete: %v", explain(err))
		return
	}
	res.Action = Deleted
}

// unmarkPatch removes fedctl's labels and annotations: what is left is an
// object like any other, which fedctl will not touch again.
var unmarkPatch = func() []byte {
	data, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"labels":      map[string]any{federation.ManagedLabel: nil, federation.ManagedByLabel: nil},
		"annotations": map[string]any{federation.SourceAnnotation: nil, HashAnnotation: nil, GenerationAnnotation: nil},
	}})
	return data
}()

func compareKeys(a, b liveKey) int {
	for _, c := range []int{strings.Compare(a.group, b.group), strings.Compare(a.resource, b.resource), strings.Compare(a.namespace, b.namespace), strings.Compare(a.name, b.name)} {
		if c != 0 {
			return c
		}
	}
	return 0
}
