// Package drain implements "fedctl drain": kubectl drain's idea applied to
// a member cluster.
package drain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
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
	Degrade     bool
	DryRun      string
	Timeout     time.Duration
	WaitTimeout time.Duration
}

// NewCmdDrain returns "fedctl drain". runF, when set, replaces Run.
func NewCmdDrain(f *cmdutil.Factory, runF func(*DrainOptions) error) *cobra.Command {
	opts := &DrainOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "drain CLUSTER (-f FILENAME | -k DIR) [--force] [--degrade] [--dry-run]",
		Short: "Move everything off a member cluster safely",
		Long: `Move the federated objects of the input off a member cluster, in order, as
kubectl drain empties a node:

  1. plan with the member cordoned, as the federation file will record it:
     replica plans leave it out, objects placed by a selector no longer go
     there, and what migrations moved off it stays where it went;
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
blocks the drain (its file and line are listed) unless --force; so does an
object or replicas the drain would leave on no member (a placement that
selects no other, a plan that cannot place every replica elsewhere). With -l only
the selected federated objects move. --dry-run prints the replicas that move
and the capacity table and changes nothing.

When the other members lack capacity, --degrade scales the moved workloads
down until they fit instead of stopping: the workload with the lowest
fedctl.io/priority annotation (an integer on the federated object; absent
is 0) first, never below its ReplicaSchedulingPreference's minReplicas for
the member, and prints what it reduced. The reduction holds until the next
apply, which plans every replica again.`,
		Example: `  # See what draining eu-1 would move, pinned objects included, and whether it fits
  fedctl drain eu-1 -f manifests/ --dry-run=client --force

  # Would eu-1's objects fit elsewhere if low-priority workloads were scaled down?
  fedctl drain eu-1 -f manifests/ --degrade --dry-run --force`,
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
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Drain even objects pinned to the member by spec.placement.clusters, and objects or replicas that no other member would take (they then run nowhere)")
	cmd.Flags().BoolVar(&opts.Degrade, "degrade", false, "When the other members lack capacity, scale the moved workloads down to fit (lowest "+PriorityAnnotation+" first, never below an RSP's minReplicas) instead of stopping")
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
	if to := fed.MigrationsTo(o.Cluster); len(to) > 0 {
		return fmt.Errorf("cluster %s is the destination of migrations (from %s): migrate those objects back or elsewhere first (fedctl migrate)", o.Cluster, strings.Join(to, "; "))
	}
	if len(fed.Clusters) < 2 {
		return fmt.Errorf("cluster %s is the only member: there is nowhere to move to", o.Cluster)
	}
	input := cmdutil.RenderInput{Context: ctx, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Failing: cmdutil.FailOnAny}
	// What runs before the drain: the member's share included, even when
	// it was cordoned first (fedctl cordon, then drain, as kubectl's
	// habit goes), which only stops new objects and plans there.
	input.Federation = func() (*members.File, error) {
		c := *file
		c.Federation = fed.Clone()
		if m, _ := c.Federation.Member(o.Cluster); m.Cordoned != nil {
			m.Cordoned = nil
			if err := c.Federation.Put(m, true); err != nil {
				return nil, err
			}
		}
		return &c, nil
	}
	before, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	next := fed.Clone()
	if m, _ := next.Member(o.Cluster); m.Cordoned == nil {
		m.Cordoned = &members.Cordon{Reason: "drained", Since: time.Now().UTC().Format(time.RFC3339)}
		if err := next.Put(m, true); err != nil {
			return err
		}
	}
	// The render after the drain is the federation it records: the member
	// cordoned (no share of any plan), its migrations still sending what
	// they move elsewhere, and then nothing left on it (withoutMember).
	// Rendering without the member would lose those migrations, and the
	// objects they moved would be deleted where they run now.
	input.Federation = func() (*members.File, error) {
		c := *file
		c.Federation = next
		return &c, nil
	}
	input.KeepWarnings = true // the render warns again about what the first one did
	input.Docs = before.Docs  // read once: stdin cannot be read twice
	after, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	after.Result = withoutMember(after.Result, o.Cluster)
	// One client per member: the read of what runs, the push and the
	// wait discover a member's types once.
	clients := cmdutil.NewMemberClients(o.Access, o.NewClient, cmdutil.Tuning{Timeout: o.Timeout})
	all, err := clients.Of(fed)
	if err != nil {
		return err
	}
	// Cordoned members get nothing new, so nothing is moved to (or waited
	// for in) them.
	var others []string
	for _, n := range fed.Names() {
		if n != o.Cluster && !slices.Contains(fed.CordonedNames(), n) {
			others = append(others, n)
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("every other member is cordoned (%s): there is nowhere to move to; uncordon one first (fedctl uncordon NAME)", strings.Join(fed.CordonedNames(), ", "))
	}
	e := &evacuation{
		IO: o.IO, What: "drain", From: o.Cluster, Destinations: others,
		File: file, Next: next, Recorded: "cluster/" + o.Cluster + " cordoned", RecordFirst: true,
		Federation: fed, Live: cmdutil.LiveReader(clients, o.Timeout, cmdutil.PlanFlags{}),
		Before: before, After: after, Selected: func(*federation.Object) bool { return true },
		Clients: all,
		Force:   o.Force, Degrade: o.Degrade, DryRun: cmdutil.IsDryRun(o.DryRun),
		Timeout: o.Timeout, WaitTimeout: o.WaitTimeout,
	}
	return e.run(ctx)
}
