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
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// FieldManager is the default field manager of fedctl's server-side applies.
const FieldManager = "fedctl"

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
	// ApplySet, when set, labels every applied object as part of this
	// ApplySet, keeps its parent up to date in each member and prunes the
	// objects of the set whose federated objects left the input
	// (--prune --applyset).
	ApplySet *ApplySet
	// MaxDeletions, when set, bounds the objects Run deletes in one member,
	// de-placement and pruning together: with more to delete, it deletes
	// none there and fails them. Nil means no bound.
	MaxDeletions *int

	// compare makes Run a Compare: every object is sent as a dry run, and
	// the live object and the dry run's result are kept.
	compare bool
}

// Input is what Run propagates.
type Input struct {
	Result *render.Result
	// Clusters are the members to sync; every other member is left alone.
	Clusters []string
	// Clients returns the members.Client of a member; it is called once per
	// member, in that member's goroutine.
	Clients func(cluster string) (members.Client, error)
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

// Compare is Run as a server-side dry run that sends every object, changed
// or not, so that drift by other writers shows too, and keeps for each
// object the live object and what the API server says it would become
// (ClusterResult.Comparisons): fedctl diff. Removals are dry runs too, with
// no MaxDeletions bound. Nothing in any member changes.
func Compare(ctx context.Context, in Input) *Report {
	in.DryRun, in.compare, in.MaxDeletions = true, true, nil
	return Run(ctx, in)
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
		a, err := s.in.Clients(s.cluster)
		if err != nil {
			cr.Error = err.Error()
			return cr
		}
		s.client = a
		if err := s.list(mctx, nil); err != nil {
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
	clusters := slices.Compact(slices.Sorted(slices.Values(in.Clusters))) // --cluster may repeat
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

func keyOf(m members.Mapping, namespace, name string) liveKey {
	if !m.Namespaced {
		namespace = ""
	}
	return liveKey{m.Resource.Group, m.Resource.Resource, namespace, name}
}

// item is one member object to apply.
type item struct {
	target  render.Target
	gvk     schema.GroupVersionKind
	mapping members.Mapping
	mapped  bool
	result  *ObjectResult
}

// memberSync syncs one member.
type memberSync struct {
	in      Input
	cluster string
	client  members.Client
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
	// generations records the types seen with a metadata.generation, so
	// that an apply can carry the generation it will leave (see
	// expectedGeneration). Guarded by mu.
	generations map[schema.GroupResource]bool
	// existing holds the metadata of every object of a scanned type and
	// namespace (see scan); scanned says which were. Guarded by mu.
	existing map[liveKey]*metav1.PartialObjectMetadata
	scanned  map[liveKey]bool // name empty

	// applySet is the ApplySet's parent in the member, with Options.ApplySet.
	applySet *applySetState
	// dryNamespaces are the Namespaces a dry run would create.
	dryNamespaces map[string]bool
	// comparisons are kept in compare mode (under mu).
	comparisons []Comparison
}

// dryNamespace says whether a dry run of this run would create namespace.
func (s *memberSync) dryNamespace(namespace string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dryNamespaces[namespace]
}

// compared keeps what obj is live and would become, in compare mode.
func (s *memberSync) compared(res ObjectResult, live, merged *unstructured.Unstructured) {
	if !s.in.compare {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.comparisons = append(s.comparisons, comparisonOf(res, live, merged))
}

func newMemberSync(in Input, cluster string) *memberSync {
	placed := make(map[string]render.Placed, len(in.Result.Placed))
	for _, p := range in.Result.Placed {
		placed[federation.SourceOf(p.Object)] = p
	}
	return &memberSync{in: in, cluster: cluster, live: map[liveKey]*unstructured.Unstructured{}, placed: placed, bumps: map[schema.GroupResource]bool{}, dryNamespaces: map[string]bool{},
		generations: map[schema.GroupResource]bool{}, existing: map[liveKey]*metav1.PartialObjectMetadata{}, scanned: map[liveKey]bool{}}
}

func (s *memberSync) writeOptions() members.WriteOptions {
	return members.WriteOptions{FieldManager: s.in.FieldManager, Force: s.in.Force, DryRun: s.in.DryRun}
}

func (s *memberSync) run(ctx context.Context) ClusterResult {
	cr := ClusterResult{Cluster: s.cluster, Objects: []ObjectResult{}}
	failures := renderFailures(s.in.Result, s.cluster)
	a, err := s.in.Clients(s.cluster)
	if err != nil {
		cr.Error = err.Error()
		return cr
	}
	s.client = a
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
	var setKinds sets.Set[schema.GroupKind]
	if s.in.ApplySet != nil {
		if err := s.readApplySet(ctx); err != nil {
			cr.Error = err.Error()
			return cr
		}
		setKinds = s.applySet.groupKinds
	}
	if err := s.list(ctx, setKinds); err != nil {
		cr.Error = err.Error()
		return cr
	}
	// The parent goes first, listing every kind the set may hold after this
	// run; when its namespace is created by this run, right after it.
	parentPending := false
	if s.in.ApplySet != nil {
		err := s.openApplySet(ctx, items)
		parentPending = errors.Is(err, errParentNamespace)
		if err != nil && !parentPending {
			cr.Error = err.Error()
			return cr
		}
	}

	first := slices.IndexFunc(items, func(it *item) bool { return !firstPhase(it.gvk.Kind) })
	if first < 0 {
		first = len(items)
	}
	s.applyAll(ctx, items[:first])
	if s.waitForCRDs(ctx, items[:first]) {
		s.client.Reset()
	}
	if parentPending {
		err := s.openApplySet(ctx, items)
		switch {
		case errors.Is(err, errParentNamespace) && s.in.DryRun && s.dryNamespace(s.in.ApplySet.Namespace):
			// created with its namespace by the real run
		case errors.Is(err, errParentNamespace):
			cr.Error = fmt.Sprintf("namespace %s of the ApplySet parent %s does not exist in this cluster; create it, federate it, or choose the parent's namespace with --namespace",
				s.in.ApplySet.Namespace, s.in.ApplySet.Ref())
			return s.finish(cr, items)
		case err != nil:
			cr.Error = err.Error()
			return s.finish(cr, items)
		}
	}
	for _, it := range items[first:] {
		if it.mapped {
			continue
		}
		m, err := s.client.Map(ctx, it.gvk)
		var ns *members.NotServedError
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
	removed := s.removeUnplaced(ctx)
	cr.Objects = append(cr.Objects, removed...)
	if s.in.ApplySet != nil {
		// Objects that failed to render for this member may be in the set
		// from an earlier run: their kinds stay listed, or no later prune
		// would find them.
		if err := s.closeApplySet(ctx, items, append(slices.Clone(removed), failures...)); err != nil {
			cr.Error = err.Error()
		}
	}
	cr.Comparisons = s.sortedComparisons()
	return cr
}

// finish reports items after the member failed as a whole midway: those
// not handled yet failed with it.
func (s *memberSync) finish(cr ClusterResult, items []*item) ClusterResult {
	for _, it := range items {
		if it.result.Action == "" {
			it.result.Action, it.result.Error = Failed, "not applied: "+cr.Error
		}
		cr.Objects = append(cr.Objects, *it.result)
	}
	cr.Comparisons = s.sortedComparisons()
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
			return members.RequestError(err)
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
			return members.RequestError(err)
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
// serve holds nothing and is not listed. Any failure fails the member, so
// nothing is removed on the strength of a partial listing.
func (s *memberSync) list(ctx context.Context, extra sets.Set[schema.GroupKind]) error {
	seen := map[schema.GroupResource]bool{}
	var mappings []members.Mapping
	var gvks []schema.GroupVersionKind
	for _, p := range s.in.Result.Placed {
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
		switch {
		case errors.As(err, &ns):
			continue
		case err != nil:
			return members.RequestError(err)
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
			lists[i], err = s.client.List(ctx, mappings[i], members.ListOptions{LabelSelector: selector})
			return err
		})
		if errs[i] != nil {
			errs[i] = fmt.Errorf("list %s: %w", mappings[i].Resource.GroupResource(), members.RequestError(errs[i]))
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
	s.scan(ctx, items)
	s.parallel(ctx, len(items), func(i int) {
		it := items[i]
		if !it.mapped || it.result.Action == Failed {
			return
		}
		s.apply(ctx, it)
	})
}

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
		var metas []metav1.PartialObjectMetadata
		err := withRetry(ctx, func() error {
			var err error
			metas, err = s.client.ListMetadata(ctx, mappings[k], members.ListOptions{Namespace: k.namespace})
			return err
		})
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
		var got *unstructured.Unstructured
		err := withRetry(ctx, func() error {
			var err error
			got, err = s.client.Get(ctx, it.mapping, res.Namespace, res.Name)
			return err
		})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			it.fail("", fmt.Errorf("get: %w", members.RequestError(err)))
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
	desired, hashed := s.desired(it, live)
	hash, err := hashOf(hashed)
	if err != nil {
		it.fail("", err)
		return
	}
	// Compare sends every object: only the API server can say what other
	// writers changed since.
	if live != nil && !adopting && upToDate(live, hashed, hash, retains(it.target)) && !s.in.compare {
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
	err = withRetry(ctx, func() error {
		var err error
		applied, err = s.client.Apply(ctx, it.mapping, obj, wo)
		return err
	})
	if err != nil && s.in.DryRun && namespaceNotFound(err) && s.dryNamespace(res.Namespace) {
		// A server-side dry run creates no Namespace, so nothing can check
		// the objects that go in a new one.
		res.Action, res.Reason = Skipped, ReasonNamespaceNotCreated
		res.Error = "its namespace is not created in a dry run, so it cannot be checked"
		s.compared(*res, nil, obj)
		return
	}
	if err != nil {
		reason := ""
		if apierrors.IsConflict(err) {
			reason = ReasonConflict
			err = fmt.Errorf("%w; use --force-conflicts to take these fields over", err)
		}
		it.fail(reason, members.RequestError(err))
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
	if s.in.DryRun {
		if res.Kind == "Namespace" && live == nil {
			s.mu.Lock()
			s.dryNamespaces[res.Name] = true
			s.mu.Unlock()
		}
		if s.in.compare && live != nil && sameObject(live, applied) {
			res.Action = Unchanged
		}
		s.compared(*res, live, applied)
		return
	}
	if err := s.recordGeneration(ctx, it, applied); err != nil {
		it.fail("", fmt.Errorf("record generation: %w", members.RequestError(err)))
	}
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
		return withRetry(ctx, func() error {
			_, err := s.client.MergePatch(ctx, it.mapping, it.result.Namespace, it.result.Name, patch, s.writeOptions())
			return err
		})
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
		var patched *unstructured.Unstructured
		err := withRetry(ctx, func() error {
			var err error
			patched, err = s.client.MergePatch(ctx, it.mapping, it.result.Namespace, it.result.Name, patch, s.writeOptions())
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
		labels[ApplySetPartOfLabel] = s.applySet.set.ID()
		u.SetLabels(labels)
	}
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

// retains says whether t's federated object leaves spec.replicas to the
// member (spec.retainReplicas: true).
func retains(t render.Target) bool {
	rr := t.Source.Spec.RetainReplicas
	return rr != nil && *rr
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
			crd, err := s.client.Get(ctx, it.mapping, "", it.result.Name)
			if err == nil && established(crd) {
				break
			}
			if err == nil {
				if msg := namesRejected(crd); msg != "" {
					// Waiting cannot help: the API server will not serve it.
					it.fail("", fmt.Errorf("the API server does not accept the CRD's names: %s", msg))
					break
				}
			}
			if err != nil && !members.Transient(err) {
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", members.RequestError(err)))
				break
			}
			t := time.NewTimer(200 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", members.RequestError(ctx.Err())))
				return any
			case <-t.C:
			}
		}
	}
	return any
}

// foreignContents says why namespace must not be deleted on de-placement
// or pruning, or "" when it may: deleting a Namespace deletes everything in
// it, and fedctl deletes nothing it did not create. Objects a member makes
// by itself (those with a controller owner, the default ServiceAccount,
// kube-root-ca.crt, events, endpoints) do not count; fedctl's own objects
// (by then removed, when the input de-placed them too) do not either.
// fedctl delete, an explicit request, is not held back.
func (s *memberSync) foreignContents(ctx context.Context, namespace string) string {
	var objs []unstructured.Unstructured
	err := withRetry(ctx, func() error {
		var err error
		objs, err = s.client.NamespaceContents(ctx, namespace)
		return err
	})
	if err != nil {
		return fmt.Sprintf("not deleted: cannot tell what the namespace holds: %v", members.RequestError(err))
	}
	var foreign []string
	for i := range objs {
		o := &objs[i]
		if (federation.Owned(o) && !federation.HandsOff(o)) || federation.SkipContent(o) != "" {
			continue
		}
		foreign = append(foreign, o.GetKind()+" "+o.GetName())
	}
	if len(foreign) == 0 {
		return ""
	}
	slices.Sort(foreign)
	shown := foreign[:min(len(foreign), 3)]
	more := ""
	if len(foreign) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(foreign)-len(shown))
	}
	return fmt.Sprintf("not deleted: the namespace holds %d object(s) fedctl did not create (%s%s), which deleting it would delete too; remove them first, or give the FederatedNamespace kubefed.io/orphan: \"true\" to leave the namespace there", len(foreign), strings.Join(shown, ", "), more)
}

// namesRejected is the message of a CRD's NamesAccepted condition when it
// is False (a plural or kind another CRD of the group already uses), which
// no wait ends.
func namesRejected(crd *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "NamesAccepted" && m["status"] == "False" {
			msg, _ := m["message"].(string)
			reason, _ := m["reason"].(string)
			return strings.TrimSpace(reason + ": " + msg)
		}
	}
	return ""
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
// (§c.4), or strips fedctl's markers from them when the federated object
// says kubefed.io/orphan: "true". Objects of federated objects that are not
// in the input are left alone, unless they are part of the ApplySet being
// pruned: those are deleted. MaxDeletions bounds the deletions.
//
// An object placed nowhere for want of its FederatedNamespace in the input
// is left alone, as KubeFed leaves it (NamespaceNotFederated): applying a
// few files of a directory must not delete what they hold.
func (s *memberSync) removeUnplaced(ctx context.Context) []ObjectResult {
	return s.removeAll(ctx, func(p render.Placed) bool {
		return !slices.Contains(p.Clusters, s.cluster) && !p.NamespaceNotFederated
	})
}

// removeAll removes, in reverse install order, fedctl's objects of the
// federated objects in the input for which remove returns true, and with
// an ApplySet the objects of the set whose federated object is not in the
// input.
func (s *memberSync) removeAll(ctx context.Context, remove func(render.Placed) bool) []ObjectResult {
	var removals []*removal
	for _, k := range slices.SortedFunc(maps.Keys(s.live), compareKeys) {
		obj := s.live[k]
		if !federation.Owned(obj) {
			continue
		}
		source := obj.GetAnnotations()[federation.SourceAnnotation]
		p, inInput := s.placed[source]
		pruned := !inInput && s.applySet != nil && !s.deleting && obj.GetLabels()[ApplySetPartOfLabel] == s.applySet.set.ID()
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
			r.result.Action, r.result.Error = Failed, msg
			if r.result.Reason == "" {
				r.result.Reason = ReasonTooManyDeletions
			}
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
	if r.orphan() {
		var patched *unstructured.Unstructured
		err := withRetry(ctx, func() error {
			var err error
			patched, err = s.client.MergePatch(ctx, r.mapping, res.Namespace, res.Name, unmarkPatch, s.writeOptions())
			return err
		})
		if err != nil && !apierrors.IsNotFound(err) {
			res.Action, res.Error = Failed, fmt.Sprintf("remove fedctl's markers: %v", members.RequestError(err))
			return
		}
		res.Action = Orphaned
		if patched != nil {
			s.compared(*res, r.obj, patched)
		}
		return
	}
	if r.obj.GetKind() == "Namespace" && r.obj.GetAPIVersion() == "v1" && !s.deleting {
		if msg := s.foreignContents(ctx, res.Name); msg != "" {
			res.Action, res.Reason, res.Error = Failed, ReasonNamespaceNotEmpty, msg
			return
		}
	}
	uid := r.obj.GetUID()
	opts := metav1.DeleteOptions{}
	if s.deleting && r.placed.Object != nil {
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
	err := withRetry(ctx, func() error { return s.client.Delete(ctx, r.mapping, res.Namespace, res.Name, opts) })
	if err != nil && !apierrors.IsNotFound(err) {
		res.Action, res.Error = Failed, fmt.Sprintf("delete: %v", members.RequestError(err))
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
		"labels":      map[string]any{federation.ManagedLabel: nil, federation.ManagedByLabel: nil, ApplySetPartOfLabel: nil},
		"annotations": map[string]any{federation.SourceAnnotation: nil, federation.HashAnnotation: nil, federation.GenerationAnnotation: nil},
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

// PlanLive is --dry-run=client when deletions matter (--prune): like Run,
// it reads each member (discovery, LISTs, GETs) to tell new, changed and
// unchanged objects and what would be deleted, but it sends no write at
// all, not even a dry run, so the API servers validate nothing.
func PlanLive(ctx context.Context, in Input) *Report {
	clients := in.Clients
	in.Clients = func(cluster string) (members.Client, error) {
		a, err := clients(cluster)
		if err != nil {
			return nil, err
		}
		return readOnlyClient{a}, nil
	}
	in.DryRun = true
	report := Run(ctx, in)
	report.DryRun = "client"
	return report
}

// readOnlyClient reads through to a member and answers every write
// itself, as if it had succeeded.
type readOnlyClient struct{ members.Client }

func (readOnlyClient) Apply(_ context.Context, _ members.Mapping, obj *unstructured.Unstructured, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	return obj.DeepCopy(), nil
}

func (r readOnlyClient) MergePatch(ctx context.Context, m members.Mapping, namespace, name string, _ []byte, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	return r.Get(ctx, m, namespace, name)
}

func (readOnlyClient) Delete(context.Context, members.Mapping, string, string, metav1.DeleteOptions) error {
	return nil
}
