package propagate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/parallel"
	"github.com/fedctl/fedctl/pkg/render"
)

// runMembers syncs every member in m's mode, in parallel (members.ForEach),
// each under its own timeout: a member that fails, or panics, fails alone.
func runMembers(ctx context.Context, in Input, m mode, sync1 func(*memberSync, context.Context) ClusterResult) *Report {
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
	if opts.MemberBudget <= 0 {
		opts.MemberBudget = DefaultMemberBudget
	}
	in.Options = opts
	// --deadline bounds the run as a whole, members waiting for their turn
	// included; without it each member has its budget from its start.
	if opts.Deadline > 0 {
		var cancel context.CancelFunc
		start := opts.Start
		if start.IsZero() {
			start = time.Now()
		}
		ctx, cancel = context.WithDeadlineCause(ctx, start.Add(opts.Deadline), &members.DeadlineError{Flag: "--deadline", D: opts.Deadline})
		defer cancel()
	}
	clusters := slices.Compact(slices.Sorted(slices.Values(in.Clusters))) // --cluster may repeat
	dry := "none"
	if m.dryRun {
		dry = "server"
	}
	report := &Report{DryRun: dry, Clusters: make([]ClusterResult, len(clusters))}
	errs := members.ForEach(ctx, opts.Concurrency, 0, len(clusters), func(mctx context.Context, i int) {
		if opts.Deadline <= 0 {
			var cancel context.CancelFunc
			mctx, cancel = context.WithTimeoutCause(mctx, opts.MemberBudget, &members.DeadlineError{D: opts.MemberBudget})
			defer cancel()
		}
		start := time.Now()
		var stats members.RetryStats
		// Await: the budget holds even where no context reaches (a
		// member's exec credential plugin that hangs).
		ms := newMemberSync(in, m, clusters[i])
		cr, err := members.Await(mctx, func() ClusterResult {
			return sync1(ms, members.WithRetryStats(mctx, &stats))
		})
		if err != nil {
			ms.emitMu.Lock()
			ms.abandoned = true // its late results are not this run's
			ms.emitMu.Unlock()
			msg := members.RequestErrorIn(mctx, err).Error() // an interrupt says "interrupted"
			if !m.dryRun {
				msg += "; what was written to it before is not known"
			}
			cr = ClusterResult{Cluster: clusters[i], Error: msg, Objects: []ObjectResult{}}
		}
		cr.Retries = stats.Retries.Load()
		cr.RetryWaitSeconds = time.Duration(stats.Waited.Load()).Round(time.Millisecond).Seconds()
		cr.Took = time.Since(start)
		report.Clusters[i] = cr
	})
	for i, err := range errs {
		var p *parallel.Panic
		switch {
		case err == nil:
		case errors.As(err, &p):
			report.Clusters[i] = ClusterResult{Cluster: clusters[i], Objects: []ObjectResult{}, Error: p.Error() + "; this is a bug in fedctl, please report it", Panic: p}
		default:
			why := "interrupted before it started"
			if de, ok := members.DeadlineReached(ctx); ok {
				why = "not started: " + de.Error()
			}
			report.Clusters[i] = ClusterResult{Cluster: clusters[i], Error: why, Objects: []ObjectResult{}}
		}
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
		r := ObjectResult{Kind: te.Object.Kind, Namespace: te.Object.Namespace, Name: te.Object.Name, FederatedObject: te.Object.SourceRef(), Action: Failed, Reason: ReasonRenderFailed, Error: te.Err.Error()}
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
	// placed maps a federated object's SourceRef to its placement.
	placed map[string]render.Placed

	// mode is what the sync is for: apply, diff, delete (see mode).
	mode mode

	mu sync.Mutex

	// abandoned is set when the run gave up on the member (members.Await):
	// its goroutine may still finish, but reports nothing more. Under
	// emitMu, with each result handed on: none comes after it is set.
	emitMu    sync.Mutex
	abandoned bool

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
	// unread holds the kinds whose objects in the member could not be
	// listed, and why (see list). Guarded by mu.
	unread map[schema.GroupKind]string
	// dryNamespaces are the Namespaces a dry run would create.
	dryNamespaces map[string]bool
	// failed counts the input's objects that failed to render or apply in
	// the member; the ApplySet is not pruned then (see removeAll).
	failed int
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
	if !s.mode.compare {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.comparisons = append(s.comparisons, comparisonOf(res, live, merged))
}

func newMemberSync(in Input, m mode, cluster string) *memberSync {
	placed := make(map[string]render.Placed, len(in.Result.Placed))
	for _, p := range in.Result.Placed {
		placed[p.Object.SourceRef()] = p
	}
	return &memberSync{in: in, mode: m, cluster: cluster, live: map[liveKey]*unstructured.Unstructured{}, placed: placed, bumps: map[schema.GroupResource]bool{}, dryNamespaces: map[string]bool{}, unread: map[schema.GroupKind]string{},
		generations: map[schema.GroupResource]bool{}, existing: map[liveKey]*metav1.PartialObjectMetadata{}, scanned: map[liveKey]bool{}}
}

func (s *memberSync) writeOptions() members.WriteOptions {
	return members.WriteOptions{FieldManager: s.in.FieldManager, Force: s.in.Force, DryRun: s.mode.dryRun}
}

func (s *memberSync) run(ctx context.Context) ClusterResult {
	cr := ClusterResult{Cluster: s.cluster, Objects: []ObjectResult{}}
	failures := renderFailures(s.in.Result, s.cluster)
	a, err := s.in.Clients(s.cluster)
	if err != nil {
		cr.Error = members.RequestErrorIn(ctx, err).Error() // the report names the member
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
			FederatedObject: t.Source.SourceRef(),
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
	if err := s.readLive(ctx); err != nil {
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
		case errors.Is(err, errParentNamespace) && s.mode.dryRun && s.dryNamespace(s.in.ApplySet.Namespace):
			// created with its namespace by the real run
		case errors.Is(err, errParentNamespace):
			cr.Error = fmt.Sprintf("namespace %s of the ApplySet parent %s does not exist in this cluster; create it, federate it, or choose the parent's namespace with --namespace",
				s.in.ApplySet.Namespace, s.in.ApplySet.Ref())
			return s.finish(ctx, cr, items)
		case err != nil:
			cr.Error = err.Error()
			return s.finish(ctx, cr, items)
		}
	}
	for _, it := range items[first:] {
		if it.mapped {
			continue
		}
		m, err := s.client.Map(ctx, it.gvk)
		var ns *members.NotServedError
		switch {
		case errors.As(err, &ns) && s.mode.dryRun:
			// A server-side dry run creates no CRD, so nothing can check
			// the objects of its type.
			it.result.Action, it.result.Reason = Skipped, ReasonCRDNotCreated
			it.result.Error = "its CRD is not created in a dry run, so it cannot be checked"
			continue
		case errors.As(err, &ns) && cordonedCRD(items[:first], it.gvk.GroupKind()):
			// Its CRD, new, was not created in a cordoned member: the
			// object would be new too. (A CRD that was applied and
			// failed says why, as TypeNotServed.)
			it.result.Action, it.result.Reason = Skipped, ReasonCordoned
			it.result.Error = "the member is cordoned: no new objects (fedctl uncordon lifts it)"
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
	for _, o := range cr.Objects {
		if o.Action == Failed {
			s.failed++
		}
	}
	removed := s.removeUnplaced(ctx)
	cr.Objects = append(cr.Objects, removed...)
	cr.Error = s.unreadReason()
	if s.in.ApplySet != nil {
		// Objects that failed to render for this member may be in the set
		// from an earlier run: their kinds stay listed, or no later prune
		// would find them.
		if err := s.closeApplySet(ctx, items, append(slices.Clone(removed), failures...)); err != nil {
			cr.Error = joinErrors(cr.Error, err.Error())
		}
	}
	cr.Comparisons = s.sortedComparisons()
	return cr
}

// finish reports items after the member failed as a whole midway: those
// not handled yet failed with it.
func (s *memberSync) finish(ctx context.Context, cr ClusterResult, items []*item) ClusterResult {
	for _, it := range items {
		if it.result.Action == "" && !notAttempted(ctx, it.result) {
			it.result.Action, it.result.Error = Failed, "not applied: "+cr.Error
		}
		cr.Objects = append(cr.Objects, *it.result)
	}
	cr.Comparisons = s.sortedComparisons()
	return cr
}

// joinErrors joins two member errors, either of which may be "".
func joinErrors(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
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

// parallel runs fn(0..n-1) with at most Requests at once. One call, the
// usual size of a phase that holds one kind of one object, runs in the
// member's goroutine, as parallel.For runs small inputs.
func (s *memberSync) parallel(ctx context.Context, n int, fn func(i int)) {
	if n <= 1 {
		for i := range n {
			fn(i) // fails at once on an ended context, as below
		}
		return
	}
	sem := make(chan struct{}, s.in.Requests)
	// a panic of a request's goroutine is the member's, with its stack
	var g parallel.Group
	for i := range n {
		if ctx.Err() != nil {
			g.Wait()
			for j := i; j < n; j++ {
				fn(j) // each fails at once on the ended context
			}
			return
		}
		sem <- struct{}{}
		g.Go(func() {
			defer func() { <-sem }()
			fn(i)
		})
	}
	g.Wait()
}

// cordonedCRD says whether the CRD of gk is among crds, skipped because
// the member is cordoned.
func cordonedCRD(crds []*item, gk schema.GroupKind) bool {
	for _, c := range crds {
		if c.result.Action != Skipped || c.result.Reason != ReasonCordoned {
			continue
		}
		if group, kind, ok := c.target.DefinedKind(); ok && group == gk.Group && kind == gk.Kind {
			return true
		}
	}
	return false
}

// cordoned says whether the member is cordoned (Options.Cordoned).
func (s *memberSync) cordoned() bool { return slices.Contains(s.in.Cordoned, s.cluster) }
