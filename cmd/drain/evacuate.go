package drain

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/capacity"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/liveplan"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/status"
)

// PriorityAnnotation on a federated object orders workloads for --degrade:
// an integer, the highest keeps its replicas longest; absent is 0.
const PriorityAnnotation = "fedctl.io/priority"

// evacuation is the sequence drain and migrate share: objects leave the
// member From for the Destinations, which must have room for them first.
type evacuation struct {
	IO   *iostreams.IOStreams
	What string // "drain" or "migrate", for messages
	From string
	// Destinations are the members the objects go to, which are applied
	// to and waited for before anything is removed from From.
	Destinations []string
	// File is the federation file, Next what it records once the checks
	// pass (the cordon or the migration), Recorded the line that says so.
	File     *members.File
	Next     *members.Federation
	Recorded string
	// RecordFirst records Next before any write, as a drain's cordon is:
	// a cordon keeps what runs on From, whatever a later apply does.
	// Otherwise (a migration) Next is recorded only once the moved objects
	// are Current in the destinations: the record is what lets every
	// later apply remove them from From, which must not happen before
	// they run elsewhere.
	RecordFirst bool
	// Federation is the federation as it is, and Live the run's live
	// reader: the replicas each planned workload runs with now are read
	// through them (runningReplicas), after the checks that need no
	// member, and the moves are counted from them.
	Federation *members.Federation
	Live       cmdutil.LiveFunc
	// Before and After are the input rendered with the federation as it
	// was and as Next, from the manifests alone, as render plans: what is
	// applied. Not from what runs, as apply plans: under rebalance: false
	// KubeFed's planner keeps replicas where they run, so a migration
	// undone would move nothing back, and drain would leave a share
	// where the manifests' weights put none. What fits is the
	// evacuation's own capacity check (readFree), not the planner's.
	Before, After *cmdutil.Rendered
	// Selected says which federated objects move: their pins block, and
	// the wait is for them.
	Selected func(*federation.Object) bool

	Clients              func(string) (members.Client, error)
	Force, Degrade       bool
	DryRun               bool
	Timeout, WaitTimeout time.Duration
}

// run checks pins and capacity, scales down with Degrade, then records
// Next, applies to the destinations, waits until the moved objects are
// Current there, and removes them from From, stopping at the first step
// that fails: nothing is removed from From unless it runs elsewhere.
func (e *evacuation) run(ctx context.Context) error {
	if pinned := pinnedTo(e.Before.Result, e.From, e.Selected); len(pinned) > 0 && !e.Force {
		return fmt.Errorf("objects pinned to %s by spec.placement.clusters block the %s:\n  %s\nremove %s from their clusters, or %s with --force (they then leave it)",
			e.From, e.What, strings.Join(pinned, "\n  "), e.From, e.What)
	}
	if removed := removedElsewhere(e.Before.Result, e.After.Result, e.From); len(removed) > 0 {
		return fmt.Errorf("the %s of %s would remove objects from other members, which it must not touch:\n  %s\nnothing was changed; please report this with the input", e.What, e.From, strings.Join(removed, "\n  "))
	}
	if lost := placedNowhere(e.Before.Result, e.After.Result, e.After.Set.Planned(), e.From, e.Selected); len(lost) > 0 {
		if !e.Force {
			return fmt.Errorf("the %s of %s would leave these without a member (their placement selects no other, or their plan cannot place every replica elsewhere):\n  %s\nplace them on other members too, or %s with --force (they then leave it)", e.What, e.From, strings.Join(lost, "\n  "), e.What)
		}
		for _, l := range lost {
			fmt.Fprintf(e.IO.ErrOut, "Warning: --force: %s\n", l)
		}
	}
	running, unread := runningReplicas(ctx, e.Federation, e.Before.Set, e.Live)
	for _, m := range slices.Sorted(maps.Keys(unread)) {
		if !slices.Contains(e.Destinations, m) {
			continue // nothing moves to it
		}
		fmt.Fprintf(e.IO.ErrOut, "%s cluster %s: what it runs could not be read (%s); the replicas moving to it are counted from the manifests' plan\n", e.IO.ErrColorScheme().WarningIcon(), m, unread[m])
	}
	moves, err := replicaMoves(e.Before, e.After, e.From, running, e.Selected)
	if err != nil {
		return err
	}
	if beyond := beyondDestinations(e.Before.Result, e.After.Result, moves, e.From, e.Destinations); len(beyond) > 0 {
		return fmt.Errorf("the %s of %s would move these to members it does not apply to (only to %s): migrations recorded there send them on, or their share goes elsewhere because a destination is cordoned or does not answer:\n  %s\nnothing was changed; %s to where they end up, or undo those migrations first", e.What, e.From, strings.Join(e.Destinations, ", "), strings.Join(beyond, "\n  "), e.What)
	}
	free, err := e.readFree(ctx, destinations(moves))
	if err != nil {
		return err
	}
	rows := capacity.Check(moves, free)
	var cuts []capacity.Cut
	if e.Degrade && len(shortfall(rows)) > 0 {
		moves, cuts = capacity.Degrade(moves, free)
		rows = capacity.Check(moves, free)
	}
	e.printPlan(moves, rows, cuts)
	if short := shortfall(rows); len(short) > 0 {
		if e.Degrade {
			return fmt.Errorf("not enough capacity to %s %s even with every moved workload at its minimum: %s; nothing was changed", e.What, e.From, strings.Join(short, "; "))
		}
		return fmt.Errorf("not enough capacity to %s %s: %s; nothing was changed (--degrade scales the moved workloads down to fit, lowest %s first)", e.What, e.From, strings.Join(short, "; "), PriorityAnnotation)
	}
	res := e.After.Result
	if len(cuts) > 0 {
		res = withCuts(res, cuts)
		// --degrade scales down, it does not remove: a workload cut to
		// no replica anywhere is one the evacuation would leave without
		// a member, which placedNowhere refuses without --force too.
		if gone := cutToNothing(res, cuts, e.From); len(gone) > 0 {
			if !e.Force {
				return fmt.Errorf("--degrade would leave these with no replica on any member: %s; nothing was changed (give them a minReplicas in their ReplicaSchedulingPreference, a higher %s, or %s with --force)", strings.Join(gone, ", "), PriorityAnnotation, e.What)
			}
			for _, g := range gone {
				fmt.Fprintf(e.IO.ErrOut, "Warning: --force: %s keeps no replica on any member\n", g)
			}
		}
	}
	for _, c := range cuts {
		fmt.Fprintf(e.IO.ErrOut, "Warning: %s in %s scaled down from %d to %d replicas to fit (--degrade; the next apply plans all %d again)\n", c.Workload, c.Member, c.Planned, c.Kept, c.Planned)
	}
	if e.DryRun {
		fmt.Fprintf(e.IO.ErrOut, "%s of %s fits (dry run): nothing was changed\n", e.What, e.From)
		return nil
	}
	return e.move(ctx, res)
}

// readFree reads the free capacity of each destination, all at once, each
// bounded by Timeout (a member that answers 503 or not at all would
// otherwise be retried for as long as the command runs).
func (e *evacuation) readFree(ctx context.Context, dests []string) (map[string]capacity.Amounts, error) {
	type freeRead struct {
		amounts capacity.Amounts
		err     error
	}
	reads, failedRuns := members.Gather(ctx, len(dests), cmp.Or(e.Timeout, propagate.DefaultTimeout), len(dests), func(mctx context.Context, i int) freeRead {
		client, err := e.Clients(dests[i])
		if err != nil {
			return freeRead{err: err}
		}
		amounts, err := liveplan.Free(mctx, client)
		return freeRead{amounts, err}
	})
	amounts := make([]capacity.Amounts, len(dests))
	errs := make([]error, len(dests))
	for i, r := range reads {
		amounts[i], errs[i] = r.amounts, cmp.Or(failedRuns[i], r.err)
	}
	free := map[string]capacity.Amounts{}
	var failed []error
	for i, m := range dests {
		if errs[i] != nil {
			failed = append(failed, fmt.Errorf("cluster %s: reading its free capacity: %w", m, members.RequestErrorIn(ctx, errs[i])))
			continue
		}
		free[m] = amounts[i]
	}
	if len(failed) > 0 {
		return nil, fmt.Errorf("%w; nothing was changed", errors.Join(failed...))
	}
	return free, nil
}

// move does the writes: record (RecordFirst), apply, wait, record
// (otherwise), remove.
func (e *evacuation) move(ctx context.Context, res *render.Result) error {
	cs := e.IO.ErrColorScheme()
	record := func() error {
		if err := e.File.Save(e.Next); err != nil {
			return err
		}
		fmt.Fprintf(e.IO.ErrOut, "%s %s\n", cs.SuccessIcon(), e.Recorded)
		return nil
	}
	kept := fmt.Sprintf("%s keeps its objects, and the federation file does not record the %s", e.From, e.What)
	if e.RecordFirst {
		if err := record(); err != nil {
			return err
		}
		kept = fmt.Sprintf("%s keeps its objects (the federation file keeps the %s)", e.From, e.What)
	}

	report := propagate.Run(ctx, propagate.Input{Result: only(res, withNeeds(res, e.Selected)), Clusters: e.Destinations, Clients: e.Clients, Options: propagate.Options{Cordoned: e.Next.CordonedNames()}})
	if failed := report.Failed(); len(failed) > 0 {
		return fmt.Errorf("applying to %s failed; %s: run it again once they answer", strings.Join(failed, ", "), kept)
	}
	fmt.Fprintf(e.IO.ErrOut, "%s applied to %s\n", cs.SuccessIcon(), strings.Join(e.Destinations, ", "))

	wctx, cancel := context.WithTimeout(ctx, e.WaitTimeout)
	defer cancel()
	if _, err := status.Wait(wctx, status.WaitInput{
		Input:    &status.Input{Result: only(res, e.Selected), Clusters: e.Destinations, Clients: e.Clients, Timeout: e.Timeout, Cordoned: e.Next.CordonedNames()},
		Applied:  true,
		Progress: e.IO.ErrOut, ColorScheme: cs,
	}); err != nil {
		return fmt.Errorf("the moved objects are not Current in %s (%w); %s", strings.Join(e.Destinations, ", "), err, kept)
	}
	fmt.Fprintf(e.IO.ErrOut, "%s every moved object is Current in %s\n", cs.SuccessIcon(), strings.Join(e.Destinations, ", "))
	if !e.RecordFirst {
		if err := record(); err != nil {
			return fmt.Errorf("%w; the moved objects run in %s as well as in %s, which keeps them", err, strings.Join(e.Destinations, ", "), e.From)
		}
	}

	// Not as a cordoned member: a cordon keeps what is unplaced there, and
	// removing it is the point. Only the moved objects: the others (a
	// migrate's unselected ones) are no business of this step, which
	// would otherwise apply them there.
	report = propagate.Run(ctx, propagate.Input{Result: only(res, e.Selected), Clusters: []string{e.From}, Clients: e.Clients})
	if failed := report.Failed(); len(failed) > 0 {
		return fmt.Errorf("removing from %s failed: %v; the moved objects run in %s, and the federation file keeps the %s: run it again to retry the removal", e.From, clusterError(report, e.From), strings.Join(e.Destinations, ", "), e.What)
	}
	removed := 0
	var namespaces []string
	for _, c := range report.Clusters {
		for _, obj := range c.Objects {
			if obj.Action == propagate.Deleted {
				removed++
				if obj.Kind == "Namespace" {
					namespaces = append(namespaces, obj.Name)
				}
			}
		}
	}
	// Drained means empty: a Namespace is gone only once everything in it
	// is, and an apply that follows at once would find it terminating.
	if err := waitGone(wctx, e.Clients, e.From, namespaces); err != nil {
		return fmt.Errorf("cluster %s: %d objects removed, but %w", e.From, removed, err)
	}
	verb := "drained"
	if e.What != "drain" {
		verb = "migrated"
	}
	fmt.Fprintf(e.IO.ErrOut, "%s cluster/%s %s: %d objects removed\n", cs.SuccessIcon(), e.From, verb, removed)
	return nil
}

func shortfall(rows []capacity.Row) []string {
	var short []string
	for _, r := range rows {
		if !r.OK() {
			short = append(short, fmt.Sprintf("%s %s needs %s, %s free", r.Member, r.Resource, capacity.Format(r.Resource, r.Needed), capacity.Format(r.Resource, r.Free)))
		}
	}
	return short
}

// waitGone polls until the named Namespaces no longer exist in cluster.
func waitGone(ctx context.Context, clients func(string) (members.Client, error), cluster string, namespaces []string) error {
	if len(namespaces) == 0 {
		return nil
	}
	client, err := clients(cluster)
	if err != nil {
		return err
	}
	mapping, err := client.Map(ctx, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"})
	if err != nil {
		return err
	}
	for _, ns := range namespaces {
		for {
			_, err := client.Get(ctx, mapping, "", ns)
			if apierrors.IsNotFound(err) {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("namespace %s is still terminating at --wait-timeout", ns)
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
	return nil
}

func clusterError(r *propagate.Report, cluster string) error {
	var failed []string
	for _, c := range r.Clusters {
		if c.Cluster != cluster {
			continue
		}
		if c.Error != "" {
			return errors.New(c.Error)
		}
		for _, o := range c.Objects {
			if o.Action == propagate.Failed {
				failed = append(failed, o.Ref()+": "+o.Error)
			}
		}
	}
	switch {
	case len(failed) == 0:
		return errors.New("some objects failed")
	case len(failed) > 3: // a member gone halfway fails thousands, with one error
		return fmt.Errorf("%s and %d more", strings.Join(failed[:3], "; "), len(failed)-3)
	}
	return errors.New(strings.Join(failed, "; "))
}

// pinnedTo lists the selected objects placed in cluster whose
// spec.placement.clusters names it, with their file and line.
func pinnedTo(before *render.Result, cluster string, selected func(*federation.Object) bool) []string {
	var out []string
	for _, p := range before.Placed {
		o := p.Object
		// one a migration already moved elsewhere is not there to move
		if !selected(o) || !slices.Contains(p.Clusters, cluster) {
			continue
		}
		for _, c := range o.Spec.Placement.Clusters {
			if c.Name == cluster {
				out = append(out, fmt.Sprintf("%s:%d: %s", o.Pos.File(), o.Pos.Line("spec.placement.clusters"), o.ID()))
			}
		}
	}
	return out
}

// replicaMoves are the replicas each member other than from gains, per
// workload, with one replica's requests there: what the plan after adds to
// the plan before, and no more than the member runs short of it (after a
// cordon and an apply the share already runs there). A member that runs
// fewer than the plan before gave it, whose plan does not grow, gains
// nothing from the evacuation. Each move carries what --degrade needs:
// what the member runs, the RSP's minimum for it, and the workload's
// priority, whose value is checked here, before anything is written.
func replicaMoves(before, after *cmdutil.Rendered, from string, running map[string]map[string]int64, selected func(*federation.Object) bool) ([]capacity.Move, error) {
	prefs := after.Set.Planned()
	planned, will := before.Result.Replicas(), after.Result.Replicas()
	was := maps.Clone(planned) // what runs: each member's entry below is a copy
	for id, byMember := range running {
		was[id] = maps.Clone(was[id])
		if was[id] == nil {
			was[id] = map[string]int64{}
		}
		maps.Copy(was[id], byMember) // what runs, where the members said
	}
	var moves []capacity.Move
	var errs []error
	for _, t := range after.Result.Targets {
		n, ok := will[t.Source.ID()][t.Cluster]
		if !ok || t.Cluster == from || !selected(t.Source) {
			continue // an unselected workload is not applied (withNeeds)
		}
		delta := min(n-was[t.Source.ID()][t.Cluster], n-planned[t.Source.ID()][t.Cluster])
		if delta <= 0 {
			continue
		}
		spec, _ := t.Object["spec"].(map[string]any)
		tmpl, _ := spec["template"].(map[string]any)
		podSpec, _ := tmpl["spec"].(map[string]any)
		m := capacity.Move{Member: t.Cluster, Workload: t.Source.ID(), Replicas: delta, PerReplica: capacity.PodRequests(podSpec), Before: was[t.Source.ID()][t.Cluster]}
		if v, ok := t.Source.Annotations[PriorityAnnotation]; ok {
			p, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				errs = append(errs, t.Source.Errorf("metadata.annotations."+PriorityAnnotation, "must be an integer, got %q", v))
			}
			m.Priority = p
		}
		if rsp, ok := prefs[t.Source.ID()]; ok {
			pref, ok := rsp.Spec.Clusters[t.Cluster]
			if !ok {
				pref = rsp.Spec.Clusters["*"]
			}
			m.Min = pref.MinReplicas
		}
		moves = append(moves, m)
	}
	return moves, errors.Join(errs...)
}

// runningReplicas are, per planned workload (federated object ID), the
// spec.replicas of its fedctl object in each member that answers (0 where
// there is none): what runs before the evacuation. A plan from the
// manifests only guesses it, and guesses wrong after a cordon and an
// apply (the member's share already runs elsewhere), with rebalance: false,
// or after a failover. read is the commands' live reader; members that do
// not answer keep the manifests' figures, and are returned with why.
func runningReplicas(ctx context.Context, fed *members.Federation, set *federation.Set, read cmdutil.LiveFunc) (map[string]map[string]int64, map[string]string) {
	if len(set.RSPs) == 0 {
		return nil, nil
	}
	live := read(ctx, fed, set)
	out := map[string]map[string]int64{}
	unread := maps.Clone(live.Why)
	for _, sc := range set.Scheduled() {
		o := sc.Target
		if o == nil {
			continue
		}
		byMember := map[string]int64{}
		lr := live.Replicas[o.TargetKey()]
		for _, m := range live.Answering {
			if why, ok := lr.Unread[m]; ok { // counted from the plan
				if unread == nil {
					unread = map[string]string{}
				}
				unread[m] = cmp.Or(unread[m], "its replica state could not be read: "+why)
				continue
			}
			byMember[m] = lr.Spec[m]
		}
		out[o.ID()] = byMember
	}
	return out, unread
}

// withCuts is res with the cut workloads' spec.replicas lowered in their
// members; the objects of res are shared, so those are copied.
func withCuts(res *render.Result, cuts []capacity.Cut) *render.Result {
	out := *res
	out.Targets = slices.Clone(res.Targets)
	for i, t := range out.Targets {
		for _, c := range cuts {
			if c.Member != t.Cluster || c.Workload != t.Source.ID() {
				continue
			}
			obj := maps.Clone(t.Object)
			spec := maps.Clone(t.Object["spec"].(map[string]any))
			spec["replicas"] = c.Kept
			obj["spec"] = spec
			out.Targets[i].Object = obj
		}
	}
	return &out
}

// cutToNothing lists the workloads of cuts that res (with the cuts) gives
// no replica on any member but from, which they leave.
func cutToNothing(res *render.Result, cuts []capacity.Cut, from string) []string {
	replicas := res.Replicas()
	var out []string
	for _, c := range cuts {
		total := int64(0)
		for member, n := range replicas[c.Workload] {
			if member != from {
				total += n
			}
		}
		if total == 0 && !slices.Contains(out, c.Workload) {
			out = append(out, c.Workload)
		}
	}
	slices.Sort(out)
	return out
}

// withoutMember is res with nothing placed in cluster: what a drain
// leaves there.
func withoutMember(res *render.Result, cluster string) *render.Result {
	out := *res
	out.Targets = slices.DeleteFunc(slices.Clone(res.Targets), func(t render.Target) bool { return t.Cluster == cluster })
	out.Placed = slices.Clone(res.Placed)
	for i, p := range out.Placed {
		out.Placed[i].Clusters = slices.DeleteFunc(slices.Clone(p.Clusters), func(c string) bool { return c == cluster })
	}
	return &out // no per-member errors: drain renders with FailOnAny
}

// removedElsewhere lists the federated objects that after no longer
// places in a member other than from, where before does: an evacuation
// moves objects off from only.
func removedElsewhere(before, after *render.Result, from string) []string {
	now := placedByID(after)
	var out []string
	for _, p := range before.Placed {
		for _, c := range p.Clusters {
			if c != from && !slices.Contains(now[p.Object.ID()], c) {
				out = append(out, fmt.Sprintf("%s:%d: %s from %s", p.Object.Pos.File(), p.Object.Pos.Line(""), p.Object.ID(), c))
			}
		}
	}
	return out
}

// placedNowhere lists the selected federated objects that before places
// in from and after places nowhere, by spec.placement.clusters or not
// (those pinned there are reported first, by pinnedTo), and the selected
// workloads with a replica plan (planned, by federated object ID) whose
// replicas after places fewer of than before: what the evacuation would
// remove without moving. A workload without a plan has its replicas in
// each member, so it has fewer once on fewer members, as it should.
func placedNowhere(before, after *render.Result, planned map[string]*federation.ReplicaSchedulingPreference, from string, selected func(*federation.Object) bool) []string {
	now := placedByID(after)
	var out []string
	chosen := map[string]bool{}
	for _, p := range before.Placed {
		if !selected(p.Object) {
			continue
		}
		chosen[p.Object.ID()] = true
		if slices.Contains(p.Clusters, from) && len(now[p.Object.ID()]) == 0 {
			out = append(out, fmt.Sprintf("%s:%d: %s: placed on no other member", p.Object.Pos.File(), p.Object.Pos.Line("spec.placement"), p.Object.ID()))
		}
	}
	was, will := before.Replicas(), after.Replicas()
	for _, id := range slices.Sorted(maps.Keys(was)) {
		rsp := planned[id]
		if rsp == nil || !chosen[id] {
			continue
		}
		var b, a int64
		for _, n := range was[id] {
			b += n
		}
		for _, n := range will[id] {
			a += n
		}
		if len(will[id]) > 0 && a < b {
			out = append(out, fmt.Sprintf("%s:%d: %s: %d of its %d replicas placed nowhere (the plan without %s cannot place them: maxReplicas, or no preference for the other members)", rsp.Pos.File(), rsp.Pos.Line("spec.clusters"), id, b-a, b, from))
		}
	}
	return out
}

// placedByID are the members res places each federated object in.
func placedByID(res *render.Result) map[string][]string {
	out := make(map[string][]string, len(res.Placed))
	for _, p := range res.Placed {
		out[p.Object.ID()] = p.Clusters
	}
	return out
}

// only is res limited to the selected federated objects.
func only(res *render.Result, selected func(*federation.Object) bool) *render.Result {
	out := &render.Result{Namespace: res.Namespace} // a namespace-scoped federation stays so
	for _, p := range res.Placed {
		if selected(p.Object) {
			out.Placed = append(out.Placed, p)
		}
	}
	for _, t := range res.Targets {
		if selected(t.Source) {
			out.Targets = append(out.Targets, t)
		}
	}
	return out
}

// withNeeds selects what an evacuation applies to its destinations: the
// selected federated objects, and the FederatedNamespaces and federated
// CustomResourceDefinitions they need there (their namespaces, their
// types). Nothing else: a migrate's unselected workloads keep what apply
// gave them (failover, rebalance: false, capacity caps), which the
// manifests' plan the evacuation renders would undo.
func withNeeds(res *render.Result, selected func(*federation.Object) bool) func(*federation.Object) bool {
	namespaces, types := map[string]bool{}, map[schema.GroupKind]bool{}
	for _, t := range res.Targets {
		if selected(t.Source) {
			namespaces[t.Source.Namespace] = true
			types[schema.GroupKind{Group: t.Type.Group, Kind: t.Type.Kind}] = true
		}
	}
	needed := map[*federation.Object]bool{}
	for _, t := range res.Targets {
		if t.Source.IsNamespace() {
			needed[t.Source] = needed[t.Source] || namespaces[t.Source.Name]
		}
		if group, kind, ok := t.DefinedKind(); ok {
			needed[t.Source] = needed[t.Source] || types[schema.GroupKind{Group: group, Kind: kind}]
		}
	}
	return func(o *federation.Object) bool { return selected(o) || needed[o] }
}

// beyondDestinations lists what the evacuation would place anew outside
// its destinations: federated objects after places in a member (other
// than from) where before did not, and replicas moving to such a member.
// The evacuation applies to its destinations only and then removes from
// from; what went elsewhere would then run nowhere (a migration chain
// that goes on past --to, or a share stranded on a cordoned destination).
func beyondDestinations(before, after *render.Result, moves []capacity.Move, from string, dests []string) []string {
	was := placedByID(before)
	var out []string
	for _, p := range after.Placed {
		for _, c := range p.Clusters {
			if c != from && !slices.Contains(dests, c) && !slices.Contains(was[p.Object.ID()], c) {
				out = append(out, fmt.Sprintf("%s:%d: %s to %s", p.Object.Pos.File(), p.Object.Pos.Line(""), p.Object.ID(), c))
			}
		}
	}
	for _, m := range moves {
		if !slices.Contains(dests, m.Member) {
			out = append(out, fmt.Sprintf("%s: %+d replicas to %s", m.Workload, m.Replicas, m.Member))
		}
	}
	return out
}

func destinations(moves []capacity.Move) []string {
	var out []string
	for _, m := range moves {
		if !slices.Contains(out, m.Member) {
			out = append(out, m.Member)
		}
	}
	slices.Sort(out)
	return out
}

// printPlan prints the replicas that move, the capacity table and what
// --degrade cut, on stdout: the data of a drain or migrate (--dry-run
// prints nothing else).
func (e *evacuation) printPlan(moves []capacity.Move, rows []capacity.Row, cuts []capacity.Cut) {
	w := tabwriter.NewWriter(e.IO.Out, 0, 4, 3, ' ', 0)
	fmt.Fprintf(w, "WORKLOAD\tTO\tREPLICAS\n")
	for _, m := range moves {
		fmt.Fprintf(w, "%s\t%s\t%+d\n", m.Workload, m.Member, m.Replicas)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "MEMBER\tRESOURCE\tNEEDED\tFREE\tFITS\n")
	for _, r := range rows {
		fits := "yes"
		if !r.OK() {
			fits = "no"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Member, r.Resource, capacity.Format(r.Resource, r.Needed), capacity.Format(r.Resource, r.Free), fits)
	}
	if len(cuts) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "DEGRADED\tMEMBER\tPLANNED\tKEPT\tMIN\tPRIORITY\n")
		for _, c := range cuts {
			fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\n", c.Workload, c.Member, c.Planned, c.Kept, c.Min, c.Priority)
		}
	}
	_ = w.Flush()
}
