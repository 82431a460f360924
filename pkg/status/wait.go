package status

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fedctl/fedctl/pkg/iostreams"
)

// DefaultInterval is how often Wait reads the members.
const DefaultInterval = time.Second

// WaitInput says what Wait waits for and where its progress goes.
type WaitInput struct {
	// Input waits for the federated objects of a render result (fedctl
	// status -f, fedctl apply --wait); Lookup for one federated object
	// found by name (fedctl status TYPE NAME). Exactly one is set.
	Input  *Input
	Lookup *LookupInput
	// Interval between reads; zero means DefaultInterval.
	Interval time.Duration
	// Progress receives progress for people (stderr); nil discards it.
	Progress io.Writer
	// Live redraws a per-cluster view in place, for a terminal; otherwise
	// one line is written per change.
	Live bool
	// ColorScheme colours Progress; nil means none.
	ColorScheme *iostreams.ColorScheme
	// Applied says the wait follows an apply to the members read (apply
	// --wait, a rollout wave): every object it could write is there, so
	// one still NotApplied is one whose write failed, which waiting
	// cannot fix. Without it (status --wait) an object not applied yet
	// may be, by another run.
	Applied bool
}

// NotReady is a member object Wait gave up on.
type NotReady struct {
	Cluster         string `json:"cluster"`
	FederatedObject string `json:"federatedObject"`
	Object          string `json:"object,omitempty"`
	Readiness       string `json:"readiness"`
	Status          string `json:"status,omitempty"`
	Message         string `json:"message,omitempty"`

	// failed is notReady's verdict: waiting cannot make it Current
	failed bool
}

// CannotBecomeCurrent says Wait gave up on the object at once, as waiting
// cannot make it Current: it is Failed, or its propagation status is one
// fedctl will not change by itself, or after an apply it is not there or
// not as the input gives it (see notReady and WaitInput.Applied).
func (n NotReady) CannotBecomeCurrent() bool {
	return n.failed
}

func (n NotReady) String() string {
	what := n.Object
	if what == "" {
		what = n.FederatedObject
	}
	s := fmt.Sprintf("%s: %s", what, n.Readiness)
	if n.Status != "" && n.Status != OK {
		s += " (" + n.Status + ")"
	}
	if n.Message != "" {
		s += ": " + n.Message
	}
	return s
}

// NotReadyError says Wait ended with member objects that are not Current:
// because one failed (Failed readiness, or a propagation status waiting
// cannot change) or because ctx ended (TimedOut).
type NotReadyError struct {
	TimedOut bool
	// Failed counts the objects that cannot become Current.
	Failed int
	// Objects are the member objects that are not Current, sorted by
	// cluster.
	Objects []NotReady
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	if e.TimedOut && len(e.Objects) == 0 {
		b.WriteString("timed out waiting: no member cluster read holds the object")
	} else if e.TimedOut {
		fmt.Fprintf(&b, "timed out waiting: %s not Current", plural(len(e.Objects), "member object"))
	} else {
		fmt.Fprintf(&b, "%s cannot become Current", plural(e.Failed, "member object"))
		if more := len(e.Objects) - e.Failed; more > 0 {
			fmt.Fprintf(&b, " (%d more not Current yet)", more)
		}
	}
	cluster := "-"
	for _, o := range e.Objects {
		if o.Cluster != cluster {
			cluster = o.Cluster
			if cluster == "" {
				b.WriteString("\n  placed in no member:")
			} else {
				fmt.Fprintf(&b, "\n  cluster %s:", cluster)
			}
		}
		fmt.Fprintf(&b, "\n    %s", o)
	}
	return b.String()
}

// hopeless are the propagation statuses waiting cannot change: fedctl
// will not create or fix these objects by itself. The last is a federated
// object's, placed nowhere (NotReady.Cluster is then "").
var hopeless = []string{ApplyOverridesFailed, TypeNotServed, AlreadyExists, ComputePlacementFailed}

// Wait reads the members every Interval until every placed member object
// is Current, and returns the last report. It stops early with a
// *NotReadyError when a member object is Failed or can never be Current
// (ApplyOverridesFailed, TypeNotServed, AlreadyExists), and when ctx's
// deadline passes (TimedOut), listing the objects that are not Current by
// cluster. A member that cannot be read is waited for: it may come back.
// When ctx is cancelled otherwise, ctx's error is returned.
func Wait(ctx context.Context, in WaitInput) (*Report, error) {
	if (in.Input == nil) == (in.Lookup == nil) {
		return nil, errors.New("status.Wait needs exactly one of Input and Lookup")
	}
	interval := in.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	p := &progress{out: in.Progress, live: in.Live, cs: in.ColorScheme, seen: map[string]string{}}
	if p.out == nil {
		p.out = io.Discard
	}
	if p.cs == nil {
		p.cs = (&iostreams.IOStreams{}).ErrColorScheme() // no terminal: no colour
	}
	var last *Report
	saidAbsent := false
	for {
		var r *Report
		if in.Input != nil {
			r = Read(ctx, *in.Input)
		} else {
			r = Lookup(ctx, *in.Lookup)
		}
		if ctx.Err() != nil {
			// A read cut short by the deadline says nothing of the members;
			// the one before it does.
			if last == nil {
				last = r
			}
			break
		}
		last = r
		pending, failed := notReady(r, in.Applied)
		p.update(r, pending)
		if len(failed) > 0 {
			p.finish()
			return r, &NotReadyError{Failed: len(failed), Objects: sortNotReady(append(failed, pending...))}
		}
		// An object looked up by TYPE NAME that no member read holds
		// yet is waited for, as -f waits for what is not applied yet:
		// another pipeline may be applying it.
		if len(pending) == 0 {
			if in.Lookup == nil || r.Summary.MemberObjects > 0 {
				p.done(r)
				return r, nil
			}
			if !saidAbsent {
				// nothing else is printed while nothing is found
				fmt.Fprintf(p.out, "no member cluster holds an object of %s yet; waiting for one to appear\n", in.Lookup.Source())
				saidAbsent = true
			}
		}
		t := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
	}
	p.finish()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		pending, failed := notReady(last, in.Applied)
		return last, &NotReadyError{TimedOut: true, Failed: len(failed), Objects: sortNotReady(append(failed, pending...))}
	}
	return last, ctx.Err()
}

// notReady lists the placed member objects of r that are not Current yet
// (pending) and those that cannot become Current (failed); applied makes
// NotApplied one of the latter (WaitInput.Applied). An object a cordon
// keeps apply from creating is neither: there is nothing to wait for.
func notReady(r *Report, applied bool) (pending, failed []NotReady) {
	for _, o := range r.Items {
		// A federated object whose placement failed is placed nowhere: it
		// has no member object to wait for, and waiting cannot place it
		// (apply refuses it). One whose namespace is not federated is
		// placed nowhere on purpose, as in KubeFed (render warns): there
		// is nothing to wait for, and nothing failed.
		if cond := o.Status.Conditions; len(cond) > 0 && cond[0].Reason == ComputePlacementFailed {
			failed = append(failed, NotReady{FederatedObject: o.Ref(), Readiness: NotFound, Status: cond[0].Reason, Message: cond[0].Message, failed: true})
		}
		for _, c := range o.Status.Clusters {
			if !c.placed || c.Status == ManagedLabelFalse {
				// handed off (kubefed.io/managed: "false"): apply does
				// not touch it, so there is nothing to wait for
				continue
			}
			// A Drifted object does not hold the input yet (the manifests
			// changed since the last apply, a GitOps controller has not
			// synced them, or someone edited it): its readiness is the old
			// version's, so it is waited for, as one NotApplied is. After
			// an apply (applied) both are writes that failed.
			outOfDate := c.Status == NotApplied || c.Status == Drifted
			hopelessStatus := slices.Contains(hopeless, c.Status) || applied && outOfDate
			if c.Readiness == Current && !hopelessStatus && c.Status != Drifted {
				continue
			}
			n := NotReady{Cluster: c.Name, FederatedObject: o.Ref(), Readiness: c.Readiness, Status: c.Status, Message: c.ReadinessMessage}
			if c.Object != nil {
				n.Object = c.Object.Ref()
			}
			if c.Status != "" && (hopelessStatus || c.Status == Drifted || c.Readiness != Current && c.ReadinessMessage == "") {
				n.Message = c.Message
			}
			if c.Readiness == Failed || hopelessStatus {
				n.failed = true
				failed = append(failed, n)
			} else {
				pending = append(pending, n)
			}
		}
	}
	return pending, failed
}

// NotCurrent lists the placed member objects of r that are not Current,
// those that cannot become Current first, by cluster: what Wait would give
// up on now.
func NotCurrent(r *Report) []NotReady {
	pending, failed := notReady(r, false)
	return sortNotReady(append(failed, pending...))
}

func sortNotReady(list []NotReady) []NotReady {
	slices.SortStableFunc(list, func(a, b NotReady) int { return strings.Compare(a.Cluster, b.Cluster) })
	return list
}

// progress writes Wait's progress.
type progress struct {
	out  io.Writer
	live bool
	cs   *iostreams.ColorScheme
	// seen is the last state written per member object, off a terminal.
	seen map[string]string
	// drawn is the number of lines of the live view on screen.
	drawn int
}

func (p *progress) update(r *Report, pending []NotReady) {
	if p.live {
		p.redraw(r, pending)
		return
	}
	for _, o := range r.Items {
		for _, c := range o.Status.Clusters {
			if !c.placed {
				continue
			}
			what := o.Ref()
			if c.Object != nil {
				what = c.Object.Ref()
			}
			key := c.Name + "\x00" + what
			state := c.Readiness
			if c.ReadinessMessage != "" {
				state += ": " + c.ReadinessMessage
			}
			if c.Status != "" {
				state += " (" + c.Status + ")"
			}
			prev, ok := p.seen[key]
			p.seen[key] = state
			// The first time, only what is not Current yet is worth a line.
			if prev == state || !ok && c.Readiness == Current && c.Status == "" {
				continue
			}
			fmt.Fprintf(p.out, "cluster %s: %s: %s\n", c.Name, what, state)
		}
	}
}

// redraw replaces the live view: one line per member with its count of
// Current objects and the first one it waits for.
func (p *progress) redraw(r *Report, pending []NotReady) {
	type count struct{ current, total int }
	counts := map[string]*count{}
	var names []string
	for _, o := range r.Items {
		for _, c := range o.Status.Clusters {
			if !c.placed {
				continue
			}
			if counts[c.Name] == nil {
				counts[c.Name] = &count{}
				names = append(names, c.Name)
			}
			counts[c.Name].total++
			if c.Readiness == Current {
				counts[c.Name].current++
			}
		}
	}
	slices.Sort(names)
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA\x1b[J", p.drawn)
	}
	lines := 0
	for _, name := range names {
		c := counts[name]
		icon := p.cs.SuccessIcon()
		if c.current < c.total {
			icon = p.cs.Yellow("…")
		}
		fmt.Fprintf(&b, "%s cluster %s: %d/%d Current", icon, name, c.current, c.total)
		var waiting []NotReady
		for _, n := range pending {
			if n.Cluster == name {
				waiting = append(waiting, n)
			}
		}
		if len(waiting) > 0 {
			fmt.Fprintf(&b, ", waiting for %s", waiting[0])
			if len(waiting) > 1 {
				fmt.Fprintf(&b, " and %d more", len(waiting)-1)
			}
		}
		b.WriteByte('\n')
		lines++
	}
	p.drawn = lines
	_, _ = io.WriteString(p.out, b.String())
}

// finish leaves the live view on screen as it is.
func (p *progress) finish() { p.drawn = 0 }

func (p *progress) done(r *Report) {
	p.finish()
	fmt.Fprintf(p.out, "%s every member object is Current: %s\n", p.cs.SuccessIcon(), r.Summary)
}

// Verdict is the outcome of a wait, for machines (fedctl apply --wait -o
// json): Ready, or not with the member objects that are not Current by
// cluster, and whether the wait timed out or stopped at an object that
// cannot become Current (Failed).
type Verdict struct {
	Ready    bool `json:"ready"`
	TimedOut bool `json:"timedOut"`
	Failed   bool `json:"failed"`
	// NotReady lists, per cluster (sorted), the member objects that are not
	// Current.
	NotReady []NotReadyInCluster `json:"notReady,omitempty"`
}

// NotReadyInCluster is the member objects of one cluster that are not Current.
type NotReadyInCluster struct {
	Cluster string     `json:"cluster"`
	Objects []NotReady `json:"objects"`
}

// VerdictOf is the Verdict of Wait's error: nil is Ready, a *NotReadyError
// says what is not; any other error (ctx cancelled) has no verdict (nil).
func VerdictOf(err error) *Verdict {
	if err == nil {
		return &Verdict{Ready: true}
	}
	var nr *NotReadyError
	if !errors.As(err, &nr) {
		return nil
	}
	v := &Verdict{TimedOut: nr.TimedOut, Failed: !nr.TimedOut}
	for _, o := range nr.Objects {
		if n := len(v.NotReady); n == 0 || v.NotReady[n-1].Cluster != o.Cluster {
			v.NotReady = append(v.NotReady, NotReadyInCluster{Cluster: o.Cluster})
		}
		last := &v.NotReady[len(v.NotReady)-1]
		last.Objects = append(last.Objects, o)
	}
	return v
}
