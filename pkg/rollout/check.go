package rollout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/status"
)

// check reads a wave before --from-wave, never writing to it: for an
// apply, every object must be there as the input gives it (not Drifted, no
// object the input removed left) and Current (within the wave's bound);
// for a delete, none of the input's objects may be left.
func (r *runner) check(ctx context.Context, res *WaveResult) {
	if r.in.DryRun {
		res.State, res.Message = Checked, "before --from-wave: not written"
		return
	}
	wctx, cancel := r.waveContext(ctx)
	defer cancel()
	if r.in.Result == nil {
		r.checkGone(ctx, wctx, res)
		return
	}
	// An object that is not there was never written: waiting cannot
	// change that, so the wave fails at once rather than at its bound.
	absent := map[string][]string{}
	var notReady []status.NotReady // the absent ones too, for -o json
	rep := status.Read(wctx, status.Input{Result: r.in.Result, Clusters: res.Clusters, Clients: r.in.Clients, Timeout: r.in.RequestTimeout, Cordoned: r.in.Cordoned})
	for _, n := range status.NotCurrent(rep) {
		if n.Status == status.NotApplied || n.Readiness == status.NotFound {
			absent[n.Cluster] = append(absent[n.Cluster], n.String())
			notReady = append(notReady, n)
		}
	}
	// An object that does not hold the input (another version's, or one
	// the input no longer places there) is not this change rolled out:
	// passing it would let the change skip the wave, a canary say, that
	// was rolled out at an earlier commit.
	stale := map[string][]string{}
	for _, o := range rep.Items {
		for _, c := range o.Status.Clusters {
			if c.Status != status.Drifted && c.Status != status.WaitingForRemoval {
				continue
			}
			n := status.NotReady{Cluster: c.Name, FederatedObject: o.Ref(), Readiness: c.Readiness, Status: c.Status, Message: c.Message}
			what := n.FederatedObject
			if c.Object != nil {
				n.Object = c.Object.Ref()
				what = n.Object
			}
			stale[c.Name] = append(stale[c.Name], what+" ("+c.Status+")")
			notReady = append(notReady, n)
		}
	}
	failed := slices.Sorted(maps.Keys(absent))
	var problems []string
	if len(failed) > 0 {
		var parts []string
		for _, c := range failed {
			parts = append(parts, c+": "+refList(absent[c])) // thousands of objects are three and a count
		}
		problems = append(problems, fmt.Sprintf("not applied, so never rolled out there: %s; start from an earlier wave", strings.Join(parts, "; ")))
	}
	if len(stale) > 0 {
		var parts []string
		for _, c := range slices.Sorted(maps.Keys(stale)) {
			parts = append(parts, c+": "+refList(stale[c]))
			if !slices.Contains(failed, c) {
				failed = append(failed, c)
			}
		}
		problems = append(problems, fmt.Sprintf("not what the input gives, so this change was never rolled out there: %s; start from an earlier wave", strings.Join(parts, "; ")))
	}
	// the members that hold their objects are waited for still, unless
	// the absent ones already fail the wave
	if present := without(res.Clusters, failed); len(present) > 0 && len(failed) <= r.in.Plan.MaxFailures {
		bad, nr, err := r.waitCurrent(wctx, present, r.in.Plan.MaxFailures-len(failed))
		failed, notReady = append(failed, bad...), append(notReady, nr...)
		if err != nil {
			problems = append(problems, err.Error())
		}
	}
	err := errors.New(strings.Join(problems, "; "))
	if ctx.Err() != nil {
		res.State, res.Message = Interrupted, "interrupted while checking"
		return
	}
	res.NotReady = notReady
	res.FailedClusters = failed
	if !r.in.Plan.tolerates(len(failed), len(res.Clusters)) {
		slices.Sort(failed)
		res.State, res.Message = Failed, fmt.Sprintf("before --from-wave, not Current in %s: %v", strings.Join(failed, ", "), err)
		return
	}
	res.State, res.Message = Checked, "before --from-wave: Current, not written"+r.in.Plan.withinNote(failed)
}

// checkGone is check for a delete: the wave's members must hold nothing
// of the input any more (an earlier run deleted it), read through
// CheckGone; a member that cannot be read has not shown that.
func (r *runner) checkGone(ctx, wctx context.Context, res *WaveResult) {
	if r.in.CheckGone == nil {
		// nothing can show the wave is gone: it is not taken as gone
		res.State, res.Message = Failed, "before --from-wave: this command cannot read a delete wave; start from an earlier wave"
		res.FailedClusters = slices.Clone(res.Clusters)
		return
	}
	report := r.in.CheckGone(wctx, res.Wave)
	if ctx.Err() != nil {
		res.State, res.Message = Interrupted, "interrupted while checking"
		return
	}
	reasons := map[string]string{}
	for _, c := range report.Clusters {
		var left, unread []string
		for _, o := range c.Objects {
			switch o.Action {
			case propagate.Deleted, propagate.Orphaned:
				left = append(left, o.Ref())
			case propagate.Failed:
				unread = append(unread, o.Ref()+": "+cmp.Or(o.Error, "could not be read"))
			}
		}
		var why []string
		if c.Error != "" {
			why = append(why, "not read: "+c.Error)
		}
		if len(left) > 0 {
			why = append(why, "still holds "+refList(left))
		}
		if len(unread) > 0 {
			why = append(why, "could not read "+refList(unread))
		}
		if len(why) > 0 {
			reasons[c.Cluster] = strings.Join(why, "; ")
		}
	}
	res.FailedClusters = slices.Sorted(maps.Keys(reasons))
	if !r.in.Plan.tolerates(len(res.FailedClusters), len(res.Clusters)) {
		var parts []string
		for _, c := range res.FailedClusters {
			parts = append(parts, c+": "+reasons[c])
		}
		res.State, res.Message = Failed, fmt.Sprintf("before --from-wave, not deleted: %s; start from an earlier wave", strings.Join(parts, "; "))
		return
	}
	res.State, res.Message = Checked, "before --from-wave: gone, not written"+r.in.Plan.withinNote(res.FailedClusters)
}

// refList names up to three objects, and how many more.
func refList(refs []string) string {
	slices.Sort(refs)
	if len(refs) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(refs[:3], ", "), len(refs)-3)
	}
	return strings.Join(refs, ", ")
}
