package rollout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/status"
)

// Wave states in a Report.
const (
	// Succeeded: applied, Current, soaked and gated, within MaxFailures.
	Succeeded = "Succeeded"
	// Checked: before --from-wave, read and found Current, never written.
	Checked = "Checked"
	// Failed: more members failed than MaxFailures, or the gate failed;
	// the rollout stopped here.
	Failed = "Failed"
	// Interrupted: Ctrl-C, or the command's end, stopped it mid-wave.
	Interrupted = "Interrupted"
	// NotStarted: the rollout stopped before this wave: its members got no
	// request at all.
	NotStarted = "NotStarted"
	// Skipped: the wave holds no member.
	Skipped = "Skipped"
	// DryRun: the wave was sent as a dry run, and nothing was waited for.
	DryRun = "DryRun"
)

// Input is what Run rolls out.
type Input struct {
	Plan *Plan
	// From and To, when set, name the first wave written (earlier ones are
	// only checked) and the last one done.
	From, To string
	// Sync writes to the members of one wave and reports: propagate.Run
	// with the command's options for apply, propagate.Delete for delete.
	Sync func(ctx context.Context, wave Wave) *propagate.Report
	// Result is what was rendered; with it each wave is waited for until
	// every object placed in its members is Current, soaked and checked
	// again. Nil is a delete: each wave is waited for until the objects it
	// deleted are gone, then soaked.
	Result *render.Result
	// CheckGone, for a delete, reads (never writes) what one wave before
	// --from-wave still holds of the input: propagate.PlanDelete. Every
	// object it would delete is one an earlier run did not get to.
	CheckGone func(ctx context.Context, wave Wave) *propagate.Report
	Clients   func(cluster string) (members.Client, error)
	// Cordoned are the cordoned members (fedctl cordon): Sync creates no
	// object there, so none is waited for.
	Cordoned []string
	// Deadline, when set, ends the whole rollout at Start plus it
	// (--deadline): no wave runs past it, whatever the wave timeout.
	Deadline time.Duration
	Start    time.Time
	// RequestTimeout bounds each read of a member; Interval is the time
	// between reads while waiting (zero: status's default).
	RequestTimeout time.Duration
	Interval       time.Duration
	// DryRun sends every wave and judges none: nothing was written, so
	// there is nothing to wait for.
	DryRun bool
	// Gate, when set, is a shell command run after each wave's soak; a
	// non-zero exit stops the rollout. It gets FEDCTL_WAVE, FEDCTL_CLUSTERS
	// and FEDCTL_CONTEXTS (comma separated) plus GateEnv, whose KUBECONFIG
	// names each member's context after the member
	// (cmdutil.GateKubeconfig): the contexts are the members' names.
	Gate    string
	GateEnv []string
	// GateOut receives the gate's output (stderr: it is progress).
	GateOut io.Writer
	// Progress receives a line per step, for people; nil discards. Live
	// redraws the wait's per-member view in place (a terminal).
	Progress    io.Writer
	Live        bool
	ColorScheme *iostreams.ColorScheme
}

// Report is the rollout's result, wave by wave, in the order gone
// through: apply --rollout -o json prints it.
type Report struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Waves      []WaveResult `json:"waves"`
	// StoppedAt names the wave the rollout stopped at, if it stopped
	// (Failed or Interrupted).
	StoppedAt string `json:"stoppedAt,omitempty"`
	// Reason says why it stopped, or that --to-wave ended it.
	Reason string `json:"reason,omitempty"`
}

// WaveResult is one wave of a Report.
type WaveResult struct {
	Wave
	State string `json:"state"`
	// FailedClusters are the members that failed: their sync, or their
	// objects did not become or stay Current.
	FailedClusters []string `json:"failedClusters,omitempty"`
	// NotReady are the member objects that were not Current.
	NotReady []status.NotReady `json:"notReady,omitempty"`
	// Gate is the gate's outcome, when one ran.
	Gate *GateResult `json:"gate,omitempty"`
	// Message says what happened in words.
	Message string `json:"message,omitempty"`
	// Duration is how long the wave took.
	Duration string `json:"duration,omitempty"`
	// Propagation is the wave's sync report.
	Propagation *propagate.Report `json:"propagation,omitempty"`
}

// GateResult is what the gate did.
type GateResult struct {
	Command  string `json:"command"`
	ExitCode int    `json:"exitCode"`
}

// Failed lists every member that failed, in every wave, sorted.
func (r *Report) Failed() []string {
	var out []string
	for _, w := range r.Waves {
		out = append(out, w.FailedClusters...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ReportAPIVersion and ReportKind identify a Report.
const (
	ReportAPIVersion = "fedctl.io/v1alpha1"
	ReportKind       = "RolloutReport"
)

// StoppedError says the rollout stopped at a wave: what failed there, and
// which waves were not touched.
type StoppedError struct {
	Wave      string
	Reason    string
	Untouched []string
}

func (e *StoppedError) Error() string {
	msg := fmt.Sprintf("rollout stopped at wave %s: %s", e.Wave, e.Reason)
	if len(e.Untouched) > 0 {
		msg += "; not touched: " + strings.Join(e.Untouched, ", ")
	}
	return msg
}

// Run goes through the waves in order and stops at the first that fails:
// members of later waves get no request at all. It returns the report and
// a *StoppedError when it stopped, or ctx's error when interrupted.
func Run(ctx context.Context, in Input) (*Report, error) {
	if in.Start.IsZero() {
		in.Start = time.Now() // as propagate does: a deadline is from now
	}
	r := &runner{in: in, out: in.Progress, cs: in.ColorScheme}
	if r.out == nil {
		r.out = io.Discard
	}
	if r.cs == nil {
		r.cs = iostreams.NoColor()
	}
	return r.run(ctx)
}

type runner struct {
	in  Input
	out io.Writer
	cs  *iostreams.ColorScheme

	// firstGroup is, per member, where waitGone's next read of what is
	// still there starts (stillThere).
	mu         sync.Mutex
	firstGroup map[string]int

	// panic is the first bug a member's sync ran into: the run stops at
	// its wave and returns it, to be reported as a bug (exit 1), not as
	// a member's failure that maxFailures tolerates.
	panic error
}

// waveTimeoutError is the cause of a wave's context when its timeout ends
// it (rollout.timeout).
type waveTimeoutError struct{ d time.Duration }

func (e *waveTimeoutError) Error() string {
	return "the wave timeout " + members.ShortDuration(e.d)
}

// waveContext bounds one wave: by the plan's wave timeout, or by the
// run's --deadline when that comes first. Its cause says which
// (waveTimeoutError, members.DeadlineError), for the wave's messages
// (within) and the members' request errors.
func (r *runner) waveContext(ctx context.Context) (context.Context, context.CancelFunc) {
	end := time.Now().Add(r.in.Plan.Timeout)
	var cause error = &waveTimeoutError{r.in.Plan.Timeout}
	if d := r.in.Deadline; d > 0 {
		if runEnd := r.in.Start.Add(d); runEnd.Before(end) {
			end, cause = runEnd, &members.DeadlineError{Flag: "--deadline", D: d}
		}
	}
	return context.WithDeadlineCause(ctx, end, cause)
}

// within names what ended wctx, a wave's context, for "... within X":
// the wave timeout or --deadline.
func (r *runner) within(wctx context.Context) string {
	var d *members.DeadlineError
	var w *waveTimeoutError
	switch cause := context.Cause(wctx); {
	case errors.As(cause, &d):
		return "the run's deadline (" + d.Flag + " " + members.ShortDuration(d.D) + ")"
	case errors.As(cause, &w):
		return w.Error()
	}
	return (&waveTimeoutError{r.in.Plan.Timeout}).Error()
}

func (r *runner) run(ctx context.Context) (*Report, error) {
	p := r.in.Plan
	rep := &Report{APIVersion: ReportAPIVersion, Kind: ReportKind}
	from := 0
	if r.in.From != "" {
		from = p.Index(r.in.From)
	}
	to := len(p.Waves) - 1
	if r.in.To != "" {
		to = p.Index(r.in.To)
	}
	for i, w := range p.Waves {
		res := WaveResult{Wave: w, State: NotStarted}
		if rep.StoppedAt == "" && i == to && to < len(p.Waves)-1 {
			// set whatever this wave holds: an empty one ends the run too
			rep.Reason = "--to-wave " + w.Name + ": later waves are left for another run"
		}
		if len(w.Clusters) == 0 {
			res.State, res.Message = Skipped, "no member"
			rep.Waves = append(rep.Waves, res)
			continue
		}
		if rep.StoppedAt != "" || i > to {
			rep.Waves = append(rep.Waves, res)
			continue
		}
		if why := r.ended(ctx); why != "" {
			// Ended between waves: this one is not started, and is
			// listed with the untouched, as nothing was sent to it.
			rep.StoppedAt, rep.Reason = w.Name, why+" before the wave started"
			rep.Waves = append(rep.Waves, res)
			fmt.Fprintf(r.out, "%s wave %s: %s\n", r.cs.FailureIcon(), w.Name, rep.Reason)
			continue
		}
		start := time.Now()
		fmt.Fprintf(r.out, "wave %d/%d %s: %s%s\n", i+1, len(p.Waves), w.Name, strings.Join(w.Clusters, ", "), concurrencyNote(w))
		if i < from {
			r.check(ctx, &res)
		} else {
			r.wave(ctx, &res)
		}
		res.Duration = time.Since(start).Round(time.Millisecond).String()
		switch res.State {
		case Failed, Interrupted:
			rep.StoppedAt, rep.Reason = w.Name, res.Message
			fmt.Fprintf(r.out, "%s wave %s: %s\n", r.cs.FailureIcon(), w.Name, res.Message)
		case DryRun:
			fmt.Fprintf(r.out, "%s wave %s: %s\n", r.cs.SuccessIcon(), w.Name, res.Message)
		default:
			icon := r.cs.SuccessIcon()
			if len(res.FailedClusters) > 0 {
				icon = r.cs.WarningIcon()
			}
			fmt.Fprintf(r.out, "%s wave %s: %s\n", icon, w.Name, res.Message)
		}
		rep.Waves = append(rep.Waves, res)
	}
	var untouched []string
	for _, w := range rep.Waves {
		if w.State == NotStarted {
			untouched = append(untouched, fmt.Sprintf("%s (%s)", w.Name, strings.Join(w.Clusters, ", ")))
		}
	}
	if len(untouched) > 0 {
		fmt.Fprintf(r.out, "not touched: %s\n", strings.Join(untouched, ", "))
	}
	if r.panic != nil {
		return rep, r.panic
	}
	if err := ctx.Err(); err != nil && rep.StoppedAt != "" {
		return rep, err
	}
	if rep.StoppedAt != "" {
		return rep, &StoppedError{Wave: rep.StoppedAt, Reason: rep.Reason, Untouched: untouched}
	}
	return rep, nil
}

// ended says why the run cannot start another wave: it was interrupted,
// or its --deadline has passed; "" when it can.
func (r *runner) ended(ctx context.Context) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	if d := r.in.Deadline; d > 0 && !time.Now().Before(r.in.Start.Add(d)) {
		return (&members.DeadlineError{Flag: "--deadline", D: d}).Error()
	}
	return ""
}

func concurrencyNote(w Wave) string {
	if w.MaxConcurrency > 0 && w.MaxConcurrency < len(w.Clusters) {
		return fmt.Sprintf(" (%d at a time)", w.MaxConcurrency)
	}
	return ""
}

// tolerates says whether a wave of members goes on with failed of them
// failed: maxFailures tolerates failed members in a wave, not a wave with
// no healthy member left to show the change works.
func (p *Plan) tolerates(failed, members int) bool {
	return failed <= p.MaxFailures && (failed == 0 || failed < members)
}

// withinNote says which members failed within maxFailures, for a wave
// that went on; "" when none did.
func (p *Plan) withinNote(failed []string) string {
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("; %s failed, within maxFailures %d", strings.Join(failed, ", "), p.MaxFailures)
}

// wave writes one wave and judges it.
func (r *runner) wave(ctx context.Context, res *WaveResult) {
	plan := r.in.Plan
	wctx, cancel := r.waveContext(ctx)
	defer cancel()
	report := r.in.Sync(wctx, res.Wave)
	res.Propagation = report
	if p := report.Panic(); p != nil {
		r.panic = p
		res.FailedClusters = report.Failed()
		res.State, res.Message = Failed, "a bug stopped the wave: "+p.Error()
		return
	}
	failed := report.Failed()
	reasons := map[string]string{}
	for _, c := range report.Clusters {
		if slices.Contains(failed, c.Cluster) {
			reasons[c.Cluster] = cmp.Or(c.Error, "some objects failed")
		}
	}
	if ctx.Err() != nil {
		res.FailedClusters = failed
		res.State, res.Message = Interrupted, "interrupted while applying; run the same command again to resume"
		return
	}
	if wctx.Err() != nil {
		res.FailedClusters = res.Clusters
		res.State, res.Message = Failed, fmt.Sprintf("%s not done within %s", r.verb(), r.within(wctx))
		return
	}
	if r.in.DryRun {
		res.FailedClusters = failed
		res.State, res.Message = DryRun, "dry run: nothing written, nothing waited for"
		return
	}
	judge := func(stage string) bool {
		res.FailedClusters = slices.Sorted(maps.Keys(reasons))
		n := len(res.FailedClusters)
		// maxFailures tolerates failed members in a wave, not a wave with
		// no healthy member left to show the change works
		if plan.tolerates(n, len(res.Clusters)) {
			return true
		}
		var parts []string
		for _, c := range res.FailedClusters {
			parts = append(parts, c+": "+reasons[c])
		}
		within := fmt.Sprintf("maxFailures %d", plan.MaxFailures)
		if n <= plan.MaxFailures {
			within += ", but no member of the wave is left"
		}
		res.State, res.Message = Failed, fmt.Sprintf("%s: %d of %d members failed (%s): %s", stage, n, len(res.Clusters), within, strings.Join(parts, "; "))
		return false
	}
	if !judge(r.verb()) {
		return
	}
	if r.in.Result == nil { // a delete: the wave is done when its objects are gone
		for c, why := range r.waitGone(wctx, report, without(res.Clusters, res.FailedClusters)) {
			reasons[c] = why
		}
		if ctx.Err() != nil {
			res.State, res.Message = Interrupted, "interrupted while waiting for the deleted objects to go; run the same command again to resume"
			return
		}
		if !judge("not gone") || !r.soak(ctx, wctx, res) {
			return
		}
	}
	if r.in.Result != nil {
		healthy := without(res.Clusters, res.FailedClusters)
		bad, notReady, err := r.waitCurrent(wctx, healthy, plan.MaxFailures-len(res.FailedClusters))
		if ctx.Err() != nil {
			res.State, res.Message = Interrupted, "interrupted while waiting for Current; run the same command again to resume"
			return
		}
		res.NotReady = append(res.NotReady, notReady...)
		for _, c := range bad {
			reasons[c] = notReadyText(c, notReady, err)
		}
		stage := "not Current"
		if wctx.Err() != nil {
			stage += " within " + r.within(wctx)
		}
		if !judge(stage) {
			return
		}
		if plan.Soak > 0 {
			if !r.soak(ctx, wctx, res) {
				return
			}
			healthy = without(res.Clusters, res.FailedClusters)
			rep := status.Read(wctx, status.Input{Result: r.in.Result, Clusters: healthy, Clients: r.in.Clients, Timeout: r.in.RequestTimeout, Cordoned: r.in.Cordoned})
			if ctx.Err() != nil {
				res.State, res.Message = Interrupted, "interrupted while reading the wave after the soak; run the same command again to resume"
				return
			}
			stale := status.NotCurrent(rep)
			res.NotReady = append(res.NotReady, stale...)
			for _, c := range healthy {
				if text := notReadyText(c, stale, nil); text != "" {
					reasons[c] = "after the soak: " + text
				}
			}
			for _, u := range rep.Unreachable {
				reasons[u.Name] = "after the soak: " + u.Error
			}
			if !judge("soak") {
				return
			}
		}
	}
	if r.in.Gate != "" {
		gate, err := r.gate(wctx, res.Wave)
		res.Gate = gate
		if ctx.Err() != nil {
			res.State, res.Message = Interrupted, "interrupted while the gate ran; run the same command again to resume"
			return
		}
		if err != nil {
			res.State, res.Message = Failed, fmt.Sprintf("gate %q: %v", r.in.Gate, err)
			return
		}
	}
	res.State = Succeeded
	res.Message = "healthy"
	switch {
	case r.in.Result != nil && plan.Soak > 0:
		res.Message = fmt.Sprintf("Current in %s, and still after a soak of %s", strings.Join(without(res.Clusters, res.FailedClusters), ", "), plan.Soak)
	case r.in.Result != nil:
		res.Message = "Current in " + strings.Join(without(res.Clusters, res.FailedClusters), ", ")
	case plan.Soak > 0:
		res.Message = fmt.Sprintf("gone from %s, and soaked %s", strings.Join(without(res.Clusters, res.FailedClusters), ", "), plan.Soak)
	default:
		res.Message = "gone from " + strings.Join(without(res.Clusters, res.FailedClusters), ", ")
	}
	res.Message += plan.withinNote(res.FailedClusters)
	if res.Gate != nil {
		res.Message += "; gate passed"
	}
}

// soak waits the plan's soak, if any, after a wave that is Current (or,
// for a delete, gone); false when the wave ended there, interrupted or out
// of time, with res saying so.
func (r *runner) soak(ctx, wctx context.Context, res *WaveResult) bool {
	plan := r.in.Plan
	if plan.Soak <= 0 {
		return true
	}
	state := "Current"
	if r.in.Result == nil {
		state = "Gone"
	}
	fmt.Fprintf(r.out, "  %s; soaking %s\n", state, plan.Soak)
	select {
	case <-wctx.Done():
	case <-time.After(plan.Soak):
	}
	if ctx.Err() != nil {
		res.State, res.Message = Interrupted, "interrupted while soaking; run the same command again to resume"
		return false
	}
	if wctx.Err() != nil {
		res.State, res.Message = Failed, fmt.Sprintf("the soak of %s did not end within %s", members.ShortDuration(plan.Soak), r.within(wctx))
		return false
	}
	return true
}

// waitCurrent waits until every object placed in clusters is Current, and
// returns the members whose objects are not (or that could not be read),
// with the objects. A member whose object cannot become Current (Failed)
// is bad at once, and the others are waited for still, within ctx, until
// more than tolerate members are bad: then the wave has failed anyway.
func (r *runner) waitCurrent(ctx context.Context, clusters []string, tolerate int) ([]string, []status.NotReady, error) {
	var bad []string
	var notReady []status.NotReady
	var errs []error
	for waiting := clusters; len(waiting) > 0 && len(bad) <= tolerate; {
		_, err := status.Wait(ctx, status.WaitInput{
			Input:    &status.Input{Result: r.in.Result, Clusters: waiting, Clients: r.in.Clients, Timeout: r.in.RequestTimeout, Cordoned: r.in.Cordoned},
			Interval: r.in.Interval, Progress: r.out, Live: r.in.Live, ColorScheme: r.cs,
			Applied: true, // a wave just written, or checked for what is there
		})
		var nr *status.NotReadyError
		switch {
		case err == nil:
			return bad, notReady, errors.Join(errs...)
		case !errors.As(err, &nr):
			return append(bad, waiting...), notReady, errors.Join(append(errs, err)...)
		case nr.TimedOut:
			// every member with an object not Current is bad now
			for _, o := range nr.Objects {
				if o.Cluster != "" && !slices.Contains(bad, o.Cluster) {
					bad = append(bad, o.Cluster)
				}
			}
			return bad, append(notReady, nr.Objects...), errors.Join(append(errs, err)...)
		}
		// Only the members with an object that cannot become Current are
		// bad; those merely not Current yet are waited for again.
		var failedNow []string
		for _, o := range nr.Objects {
			if !o.CannotBecomeCurrent() || o.Cluster == "" {
				continue
			}
			notReady = append(notReady, o)
			if !slices.Contains(failedNow, o.Cluster) {
				failedNow = append(failedNow, o.Cluster)
			}
		}
		if len(failedNow) == 0 {
			// Wait gave up on objects no member can be blamed for (a
			// placement that failed, which names no cluster): waiting
			// again would give up again at once, so every member waited
			// for is bad.
			return append(bad, waiting...), append(notReady, nr.Objects...), errors.Join(append(errs, err)...)
		}
		bad = append(bad, failedNow...)
		errs = append(errs, err)
		waiting = without(waiting, failedNow)
	}
	return bad, notReady, errors.Join(errs...)
}

// verb is what the rollout does to each wave's members.
func (r *runner) verb() string {
	if r.in.Result == nil {
		return "delete"
	}
	return "apply"
}

// gate runs the gate command for a wave.
func (r *runner) gate(ctx context.Context, w Wave) (*GateResult, error) {
	fmt.Fprintf(r.out, "  gate: %s\n", r.in.Gate)
	cmd := exec.CommandContext(ctx, "sh", "-c", r.in.Gate)
	cmd.Env = append(append(os.Environ(), r.in.GateEnv...),
		"FEDCTL_WAVE="+w.Name, "FEDCTL_CLUSTERS="+strings.Join(w.Clusters, ","), "FEDCTL_CONTEXTS="+strings.Join(w.Clusters, ","))
	out := r.in.GateOut
	if out == nil {
		out = io.Discard
	}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = time.Second
	ownProcessGroup(cmd)
	err := cmd.Run()
	res := &GateResult{Command: r.in.Gate}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		res.ExitCode = exit.ExitCode()
		if ctx.Err() != nil {
			return res, fmt.Errorf("did not end within %s", r.within(ctx))
		}
		return res, fmt.Errorf("exited %d", res.ExitCode)
	case err != nil:
		res.ExitCode = -1
		return res, err
	}
	return res, nil
}

func notReadyText(cluster string, objs []status.NotReady, err error) string {
	var parts []string
	for _, o := range objs {
		if o.Cluster == cluster {
			parts = append(parts, o.String())
		}
	}
	if len(parts) == 0 && err != nil {
		return err.Error()
	}
	return strings.Join(parts, "; ")
}

func without(all, drop []string) []string {
	var out []string
	for _, c := range all {
		if !slices.Contains(drop, c) {
			out = append(out, c)
		}
	}
	return out
}
