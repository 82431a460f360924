package cmdutil

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
)

// ResultStream prints, on stderr, one kubectl-style line per object as
// the members report it ("cluster1  deployment.apps/web configured"):
// created, configured, deleted and orphaned objects always, unchanged and
// skipped ones from -v 1. Failures are left to the summary, which groups
// them. On a terminal it also keeps a live progress line per member
// (done/total), erased at Close. OnResult may be called from any
// goroutine; the stream serialises the printing.
type ResultStream struct {
	mu        sync.Mutex
	w         io.Writer
	cs        *iostreams.ColorScheme
	verbosity int
	suffix    string
	width     int
	live      bool
	clusters  []string
	totals    map[string]int
	done      map[string]int
	drawn     bool
	// drawnWidth is the length of the progress line on the screen.
	drawnWidth int
	lastDraw   time.Time
}

// maxProgressWidth is the widest progress line shown per member; a wider
// one is summed up.
const maxProgressWidth = 78

// progressEvery bounds how often the live progress line is redrawn.
const progressEvery = 100 * time.Millisecond

// NewResultStream returns a stream for clusters, each to get its member
// objects of targets (none for delete). dryRun is "none", "client" or
// "server".
func NewResultStream(ios *iostreams.IOStreams, verbosity int, dryRun string, clusters []string, targets []render.Target) *ResultStream {
	counts := totals(clusters, targets)
	s := &ResultStream{w: ios.ErrOut, cs: ios.ErrColorScheme(), verbosity: verbosity, live: ios.IsStderrTTY(),
		clusters: slices.Sorted(maps.Keys(counts)), totals: counts, done: map[string]int{}}
	for _, c := range s.clusters {
		s.width = max(s.width, len(c))
	}
	if dryRun == "server" {
		s.suffix = " (server dry run)"
	}
	return s
}

// OnResult is propagate.Options.OnResult.
func (s *ResultStream) OnResult(cluster string, r propagate.ObjectResult) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done[cluster]++
	var line string
	switch r.Action {
	case propagate.Created, propagate.Configured, propagate.Deleted, propagate.Orphaned, propagate.Released:
		line = string(r.Action)
	case propagate.Unchanged, propagate.Skipped:
		if s.verbosity >= DetailVerbosity {
			line = string(r.Action)
			if r.Reason != "" {
				line += " (" + r.Reason + ")"
			}
		}
	}
	if line != "" {
		s.erase()
		fmt.Fprintf(s.w, "%-*s  %s %s%s\n", s.width, cluster, r.KindName(), line, s.suffix)
	}
	if s.live && (line != "" || time.Since(s.lastDraw) >= progressEvery) {
		s.draw()
	}
}

// Close erases the progress line.
func (s *ResultStream) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.erase()
}

func (s *ResultStream) erase() {
	if s.drawn {
		// spaces, not an escape sequence: NO_COLOR output has none
		fmt.Fprint(s.w, "\r"+strings.Repeat(" ", s.drawnWidth)+"\r")
		s.drawn = false
	}
}

func (s *ResultStream) draw() {
	s.erase()
	parts := make([]string, 0, len(s.clusters))
	done, total := 0, 0
	for _, c := range s.clusters {
		d, n := s.done[c], max(s.totals[c], s.done[c])
		parts = append(parts, fmt.Sprintf("%s %d/%d", c, d, n))
		done, total = done+d, total+n
	}
	line := strings.Join(parts, "  ")
	if len(line) > maxProgressWidth {
		// one line that a terminal does not wrap, or \r could not erase it
		line = fmt.Sprintf("%d/%d objects in %d member clusters", done, total, len(s.clusters))
	}
	fmt.Fprint(s.w, line)
	s.drawn, s.drawnWidth, s.lastDraw = true, len(line), time.Now()
}

// WriteNames writes "CLUSTER kind.group/NAME" for every object of the
// report that was applied, left unchanged, deleted or orphaned: apply and
// delete's -o name, kubectl's with the cluster first.
func WriteNames(w io.Writer, r *propagate.Report) error {
	for _, c := range r.Clusters {
		for _, o := range c.Objects {
			if o.Action == propagate.Failed || o.Action == propagate.Skipped {
				continue
			}
			if _, err := fmt.Fprintf(w, "%s %s\n", c.Cluster, o.KindName()); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteTimings writes -v 4's line per member: requests sent, writes among
// them, and the time the member took.
func WriteTimings(w io.Writer, r *propagate.Report, stats *members.RequestStats) {
	for _, c := range r.Clusters {
		m := stats.Member(c.Cluster)
		fmt.Fprintf(w, "cluster %s: %d requests, %d writes, %.2fs\n", c.Cluster, m.Requests.Load(), m.Writes.Load(), c.Took.Seconds())
	}
}

// totals counts the objects each of clusters is to get, for the progress:
// the member objects of targets (none for delete, which does not know them
// beforehand).
func totals(clusters []string, targets []render.Target) map[string]int {
	totals := make(map[string]int, len(clusters))
	for _, c := range clusters {
		totals[c] = 0
	}
	for _, t := range targets {
		if _, ok := totals[t.Cluster]; ok {
			totals[t.Cluster]++
		}
	}
	return totals
}

// MemberTimeFlags point at a command's options for the flags of the
// commands that write to members (apply, delete, and diff's server-side
// dry runs).
type MemberTimeFlags struct {
	// Timeout bounds each request to a member (--timeout,
	// --request-timeout).
	Timeout *time.Duration
	// Deadline bounds the whole run (--deadline); zero: none, each member
	// then has propagate.DefaultMemberBudget.
	Deadline *time.Duration
	// QPS and Burst bound the requests to a member without API Priority
	// and Fairness.
	QPS   *float32
	Burst *int
}

// AddMemberTimeFlags adds --timeout (per request; --request-timeout is
// the same flag, kubectl's name), --deadline, --qps and --burst.
func AddMemberTimeFlags(cmd *cobra.Command, t MemberTimeFlags) {
	fl := cmd.Flags()
	fl.DurationVar(t.Timeout, "timeout", propagate.DefaultTimeout, "Time allowed for each request to a member cluster (also --request-timeout, kubectl's name)")
	AddDeadlineFlag(cmd, t.Deadline)
	fl.Float32Var(t.QPS, "qps", members.DefaultQPS, "Requests per second to a member cluster without API Priority and Fairness (one with it is not limited)")
	fl.IntVar(t.Burst, "burst", members.DefaultBurst, "Burst of requests to a member cluster without API Priority and Fairness")
	prev := fl.GetNormalizeFunc()
	fl.SetNormalizeFunc(func(f *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "request-timeout" {
			name = "timeout"
		}
		return prev(f, name)
	})
}

// AddDeadlineFlag adds --deadline.
func AddDeadlineFlag(cmd *cobra.Command, deadline *time.Duration) {
	cmd.Flags().DurationVar(deadline, "deadline", 0, fmt.Sprintf("Time allowed for the whole run, every member and retry included; what is left then is reported not attempted (default none: each member has %gm)", propagate.DefaultMemberBudget.Minutes()))
}

// CheckDeadline checks --deadline: zero (none) or positive.
func CheckDeadline(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--deadline must be positive, got %s", d)
	}
	return nil
}

// Validate checks the flags.
func (t MemberTimeFlags) Validate() []error {
	var errs []error
	if *t.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout must be positive, got %s", *t.Timeout))
	}
	if err := CheckDeadline(*t.Deadline); err != nil {
		errs = append(errs, err)
	}
	if *t.QPS <= 0 {
		errs = append(errs, fmt.Errorf("--qps must be positive, got %g", *t.QPS))
	}
	if *t.Burst < 1 {
		errs = append(errs, fmt.Errorf("--burst must be at least 1, got %d", *t.Burst))
	}
	return errs
}
