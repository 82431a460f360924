// Package drain implements "fedctl drain": kubectl drain's idea applied to
// a member cluster.
package drain

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
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

// DrainOptions are the inputs of "fedctl drain".
type DrainOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	NewClient  func(members.Access, members.Member) (members.Client, error)

	Cluster     string
	Filenames   []string
	Recursive   bool
	Kustomize   string
	Selector    string
	Namespace   string
	Force       bool
	DryRun      string
	Timeout     time.Duration
	WaitTimeout time.Duration
}

// NewCmdDrain returns "fedctl drain". runF, when set, replaces Run.
func NewCmdDrain(f *cmdutil.Factory, runF func(*DrainOptions) error) *cobra.Command {
	opts := &DrainOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "drain CLUSTER (-f FILENAME | -k DIR) [--force] [--dry-run]",
		Short: "Move everything off a member cluster safely",
		Long: `Move the federated objects of the input off a member cluster, in order, as
kubectl drain empties a node:

  1. plan without the member: replica plans leave it out, and objects placed
     by a selector no longer go there;
  2. check capacity: the replicas that move need their pods' requests free on
     the members they move to (nodes' allocatable minus the requests of the
     pods already there), per member and resource; a shortfall stops the
     drain before anything is written;
  3. cordon the member in the federation file, so that later applies keep it
     out;
  4. apply to the other members and wait until every object there is
     Current;
  5. remove fedctl's objects of the input from the drained member, and wait
     until the Namespaces removed there are gone.

An object whose spec.placement.clusters names the member is pinned to it and
blocks the drain (its file and line are listed) unless --force. With -l only
the selected federated objects move. --dry-run prints the replicas that move
and the capacity table and changes nothing.`,
		Example: `  # See what draining eu-1 would move, pinned objects included, and whether it fits
  fedctl drain eu-1 -f manifests/ --dry-run=client --force`,
		Args:              cmdutil.ExactArgs(1, "CLUSTER"),
		ValidArgsFunction: cmdutil.ClusterNames(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Cluster = args[0]
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if opts.DryRun == "server" {
				return cmdutil.FlagErrorf("--dry-run=server is not supported by drain; use --dry-run")
			}
			if err := cmdutil.CheckInputFlags(opts.Filenames, opts.Kustomize); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client: print the sequence and the capacity table, change nothing; a bare --dry-run is client")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Drain even objects pinned to the member by spec.placement.clusters")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", propagate.DefaultTimeout, "How long each request to a member may take")
	cmd.Flags().DurationVar(&opts.WaitTimeout, "wait-timeout", 5*time.Minute, "How long to wait for the moved objects to be Current")
	return cmd
}

// Run drains the member.
func (o *DrainOptions) Run(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	fed := file.Federation
	if _, ok := fed.Member(o.Cluster); !ok {
		return &members.NotMemberError{Name: o.Cluster, Members: fed.Names()}
	}
	if len(fed.Clusters) < 2 {
		return fmt.Errorf("cluster %s is the only member: there is nowhere to move to", o.Cluster)
	}
	input := cmdutil.RenderInput{Context: ctx, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Failing: cmdutil.FailOnAny}
	input.Federation = o.Federation
	before, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	input.Federation = func() (*members.File, error) {
		c := *file
		c.Federation = fed.Clone()
		c.Federation.Remove(o.Cluster)
		return &c, nil
	}
	// The render without the member warns again about what the first one
	// did, and about lists naming the member, which pinnedTo reports.
	input.KeepWarnings = true
	after, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	if pinned := pinnedTo(before.Set, o.Cluster); len(pinned) > 0 && !o.Force {
		return fmt.Errorf("objects pinned to %s by spec.placement.clusters block the drain:\n  %s\nremove %s from their clusters, or drain with --force (they then leave it)", o.Cluster, strings.Join(pinned, "\n  "), o.Cluster)
	}

	moves := replicaMoves(before.Result, after.Result, o.Cluster)
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	clients := members.Clients(fed, access, o.NewClient)
	free := map[string]capacity.Amounts{}
	for _, m := range destinations(moves) {
		client, err := clients(m)
		if err == nil {
			free[m], err = liveplan.Free(ctx, client)
		}
		if err != nil {
			return fmt.Errorf("cluster %s: reading its free capacity: %w; nothing was changed", m, err)
		}
	}
	rows := capacity.Check(moves, free)
	o.printPlan(moves, rows)
	var short []string
	for _, r := range rows {
		if !r.OK() {
			short = append(short, fmt.Sprintf("%s %s needs %s, %s free", r.Member, r.Resource, capacity.Format(r.Resource, r.Needed), capacity.Format(r.Resource, r.Free)))
		}
	}
	if len(short) > 0 {
		return fmt.Errorf("not enough capacity to drain %s: %s; nothing was changed", o.Cluster, strings.Join(short, "; "))
	}
	if cmdutil.IsDryRun(o.DryRun) {
		fmt.Fprintf(o.IO.ErrOut, "drain of %s fits (dry run): nothing was changed\n", o.Cluster)
		return nil
	}
	return o.drain(ctx, file, after.Result, clients)
}

// drain does steps 3 to 5, stopping at the first that fails: nothing is
// removed from the drained member unless its objects run elsewhere.
func (o *DrainOptions) drain(ctx context.Context, file *members.File, res *render.Result, clients func(string) (members.Client, error)) error {
	cs := o.IO.ErrColorScheme()
	fed := file.Federation.Clone()
	m, _ := fed.Member(o.Cluster)
	if m.Cordoned == nil {
		m.Cordoned = &members.Cordon{Reason: "drained", Since: time.Now().UTC().Format(time.RFC3339)}
		if err := fed.Put(m, true); err != nil {
			return err
		}
		if err := file.Save(fed); err != nil {
			return err
		}
	}
	fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s cordoned\n", cs.SuccessIcon(), o.Cluster)

	var others []string
	for _, n := range fed.Names() {
		if n != o.Cluster {
			others = append(others, n)
		}
	}
	report := propagate.Run(ctx, propagate.Input{Result: res, Clusters: others, Clients: clients, Options: propagate.Options{Cordoned: fed.CordonedNames()}})
	if failed := report.Failed(); len(failed) > 0 {
		return fmt.Errorf("applying to the other members failed in %s; %s keeps its objects (it stays cordoned)", strings.Join(failed, ", "), o.Cluster)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s applied to %s\n", cs.SuccessIcon(), strings.Join(others, ", "))

	wctx, cancel := context.WithTimeout(ctx, o.WaitTimeout)
	defer cancel()
	if _, err := status.Wait(wctx, status.WaitInput{
		Input:    &status.Input{Result: res, Clusters: others, Clients: clients, Timeout: o.Timeout},
		Progress: o.IO.ErrOut, ColorScheme: cs,
	}); err != nil {
		return fmt.Errorf("the moved objects are not Current in the other members (%w); %s keeps its objects (it stays cordoned)", err, o.Cluster)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s every object is Current in %s\n", cs.SuccessIcon(), strings.Join(others, ", "))

	report = propagate.Run(ctx, propagate.Input{Result: res, Clusters: []string{o.Cluster}, Clients: clients})
	if failed := report.Failed(); len(failed) > 0 {
		return fmt.Errorf("removing from %s failed: %v", o.Cluster, clusterError(report, o.Cluster))
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
	if err := waitGone(wctx, clients, o.Cluster, namespaces); err != nil {
		return fmt.Errorf("cluster %s: %d objects removed, but %w", o.Cluster, removed, err)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s drained: %d objects removed\n", cs.SuccessIcon(), o.Cluster, removed)
	return nil
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
	for _, c := range r.Clusters {
		if c.Cluster == cluster && c.Error != "" {
			return errors.New(c.Error)
		}
	}
	return errors.New("some objects failed")
}

// pinnedTo lists the objects whose spec.placement.clusters names cluster,
// with their file and line.
func pinnedTo(set *federation.Set, cluster string) []string {
	var out []string
	for _, o := range set.Objects {
		for _, c := range o.Spec.Placement.Clusters {
			if c.Name == cluster {
				out = append(out, fmt.Sprintf("%s:%d: %s", o.Pos.File(), o.Pos.Line("spec.placement.clusters"), o.ID()))
			}
		}
	}
	return out
}

// replicaMoves are the replicas each other member gains from the drain,
// per workload, with one replica's requests there: from the two renders'
// spec.replicas.
func replicaMoves(before, after *render.Result, drained string) []capacity.Move {
	replicas := func(res *render.Result) map[string]map[string]int64 {
		out := map[string]map[string]int64{}
		for _, t := range res.Targets {
			spec, _ := t.Object["spec"].(map[string]any)
			n, ok := spec["replicas"].(int64)
			if !ok {
				continue
			}
			key := t.Source.ID()
			if out[key] == nil {
				out[key] = map[string]int64{}
			}
			out[key][t.Cluster] = n
		}
		return out
	}
	was, will := replicas(before), replicas(after)
	var moves []capacity.Move
	for _, t := range after.Targets {
		n, ok := will[t.Source.ID()][t.Cluster]
		if !ok || t.Cluster == drained {
			continue
		}
		if delta := n - was[t.Source.ID()][t.Cluster]; delta > 0 {
			spec, _ := t.Object["spec"].(map[string]any)
			tmpl, _ := spec["template"].(map[string]any)
			podSpec, _ := tmpl["spec"].(map[string]any)
			moves = append(moves, capacity.Move{Member: t.Cluster, Workload: t.Source.ID(), Replicas: delta, PerReplica: capacity.PodRequests(podSpec)})
		}
	}
	return moves
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

// printPlan prints the replicas that move and the capacity table, on
// stdout: the data of a drain (--dry-run prints nothing else).
func (o *DrainOptions) printPlan(moves []capacity.Move, rows []capacity.Row) {
	w := tabwriter.NewWriter(o.IO.Out, 0, 4, 3, ' ', 0)
	fmt.Fprintf(w, "WORKLOAD\tTO\tREPLICAS\n")
	for _, m := range moves {
		fmt.Fprintf(w, "%s\t%s\t+%d\n", m.Workload, m.Member, m.Replicas)
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
	_ = w.Flush()
}
