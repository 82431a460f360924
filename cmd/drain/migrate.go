package drain

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// MigrateOptions are the inputs of "fedctl migrate".
type MigrateOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	NewClient  func(members.Access, members.Member) (members.Client, error)

	From, To    string
	Selector    string
	Filenames   []string
	Recursive   bool
	Kustomize   string
	Namespace   string
	Force       bool
	Degrade     bool
	DryRun      string
	Timeout     time.Duration
	WaitTimeout time.Duration
	// Now is the clock of the migration's since; nil is time.Now.
	Now func() time.Time
}

// NewCmdMigrate returns "fedctl migrate". runF, when set, replaces Run.
func NewCmdMigrate(f *cmdutil.Factory, runF func(*MigrateOptions) error) *cobra.Command {
	opts := &MigrateOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "migrate --from CLUSTER --to CLUSTER -l SELECTOR (-f FILENAME | -k DIR) [--force] [--degrade] [--dry-run]",
		Short: "Move the selected federated objects from one member cluster to another",
		Long: `Move the federated objects that -l selects off one member cluster to another,
with drain's sequence: plan with the move, check the destination's capacity
(what the replicas that move request against its nodes' free allocatable),
record the migration in the federation file, apply to the destination and
wait until the moved objects are Current there, then remove them from the
source. Objects -l does not select stay where they are.

The destination takes the source's place for the selected objects: it gets
the objects placed in the source, and the source's share of their replica
plans in addition to its own. The migration stays in the federation file, so
later applies keep the objects where they went; migrating them back with the
same selector (--from the destination --to the source) removes it.

Objects pinned to the source by spec.placement.clusters block the migration
unless --force, and so do objects or replicas it would leave on no member;
--degrade and --dry-run are drain's.`,
		Example: `  # Move the objects labelled app=web off eu-1 to us-1, checking us-1's capacity first
  fedctl migrate --from eu-1 --to us-1 -l app=web -f manifests/

  # Move them back: the migration is removed from the federation file
  fedctl migrate --from us-1 --to eu-1 -l app=web -f manifests/`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if opts.DryRun == "server" {
				return cmdutil.FlagErrorf("--dry-run=server is not supported by migrate; use --dry-run")
			}
			if err := cmdutil.CheckInputFlags(opts.Filenames, opts.Kustomize); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if err := opts.Validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "The member cluster the objects leave")
	cmd.Flags().StringVar(&opts.To, "to", "", "The member cluster the objects go to")
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmd.Flag("selector").Usage = "The federated objects that move, by their labels (required; kubectl's syntax: -l app=web,tier!=db)"
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client: print the sequence and the capacity table, change nothing; a bare --dry-run is client")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Migrate even objects pinned to the source by spec.placement.clusters, and objects or replicas no member would take (they then run nowhere)")
	cmd.Flags().BoolVar(&opts.Degrade, "degrade", false, "When the destination lacks capacity, scale the moved workloads down to fit (lowest "+PriorityAnnotation+" first, never below an RSP's minReplicas) instead of stopping")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", propagate.DefaultTimeout, "How long each request to a member may take")
	cmd.Flags().DurationVar(&opts.WaitTimeout, "wait-timeout", 5*time.Minute, "How long to wait for the moved objects to be Current")
	_ = cmd.RegisterFlagCompletionFunc("from", cmdutil.ClusterNames(f))
	_ = cmd.RegisterFlagCompletionFunc("to", cmdutil.ClusterNames(f))
	return cmd
}

// Validate checks the flags alone.
func (o *MigrateOptions) Validate() error {
	switch {
	case o.From == "" || o.To == "":
		return cmdutil.FlagErrorf("--from and --to are required")
	case o.From == o.To:
		return cmdutil.FlagErrorf("--from and --to name the same member %s", o.From)
	case strings.TrimSpace(o.Selector) == "":
		return cmdutil.FlagErrorf("-l is required: it selects the federated objects that move (every object is fedctl drain's job)")
	}
	if _, err := labels.Parse(o.Selector); err != nil {
		return cmdutil.FlagErrorf("-l %q: %v", o.Selector, err)
	}
	return nil
}

// Run migrates the selected objects.
func (o *MigrateOptions) Run(ctx context.Context) error {
	sel, err := labels.Parse(o.Selector)
	if err != nil {
		return cmdutil.FlagErrorf("-l %q: %v", o.Selector, err)
	}
	selector := sel.String() // canonical, so that the way back finds it
	file, err := o.Federation()
	if err != nil {
		return err
	}
	fed := file.Federation
	if err := fed.CheckMembers([]string{o.From, o.To}); err != nil {
		return err
	}
	if to, _ := fed.Member(o.To); to.Cordoned != nil {
		return fmt.Errorf("cluster %s is cordoned: it takes no new objects; uncordon it first, or migrate elsewhere", o.To)
	}
	next, recorded := o.record(fed, selector)

	input := cmdutil.RenderInput{Context: ctx, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Namespace: o.Namespace, Failing: cmdutil.FailOnAny}
	input.Federation = o.Federation
	before, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	selected := func(obj *federation.Object) bool { return sel.Matches(labels.Set(obj.Labels)) }
	if err := placedIn(before, selected, o.From, o.Selector); err != nil {
		return err
	}
	input.Federation = func() (*members.File, error) {
		c := *file
		c.Federation = next
		return &c, nil
	}
	input.KeepWarnings = true // the first render printed them
	input.Docs = before.Docs  // read once: stdin cannot be read twice
	after, err := cmdutil.Render(o.IO, input)
	if err != nil {
		return err
	}
	// One client per member: the read of what runs, the push and the
	// wait discover a member's types once.
	clients := cmdutil.NewMemberClients(o.Access, o.NewClient, cmdutil.Tuning{Timeout: o.Timeout})
	all, err := clients.Of(fed)
	if err != nil {
		return err
	}
	e := &evacuation{
		IO: o.IO, What: "migrate", From: o.From, Destinations: []string{o.To},
		File: file, Next: next, Recorded: recorded,
		Federation: fed, Live: cmdutil.LiveReader(clients, o.Timeout, cmdutil.PlanFlags{}),
		Before: before, After: after, Selected: selected,
		Clients: all,
		Force:   o.Force, Degrade: o.Degrade, DryRun: cmdutil.IsDryRun(o.DryRun),
		Timeout: o.Timeout, WaitTimeout: o.WaitTimeout,
	}
	return e.run(ctx)
}

// record is the federation with the migration: a migration the other way
// with the same selector is removed (the objects go back), otherwise one
// is added to the source unless it is there already. It says which.
func (o *MigrateOptions) record(fed *members.Federation, selector string) (*members.Federation, string) {
	next := fed.Clone()
	to, _ := next.Member(o.To)
	if i := slices.IndexFunc(to.Migrations, func(m members.Migration) bool { return m.To == o.From && m.Selector == selector }); i >= 0 {
		to.Migrations = slices.Delete(to.Migrations, i, i+1)
		_ = next.Put(to, true)
		return next, fmt.Sprintf("migration %s → %s (-l %s) removed from the federation file", o.To, o.From, selector)
	}
	from, _ := next.Member(o.From)
	msg := fmt.Sprintf("migration %s → %s (-l %s) recorded in the federation file", o.From, o.To, selector)
	if slices.ContainsFunc(from.Migrations, func(m members.Migration) bool { return m.To == o.To && m.Selector == selector }) {
		return next, fmt.Sprintf("migration %s → %s (-l %s) already recorded in the federation file", o.From, o.To, selector)
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	from.Migrations = append(from.Migrations, members.Migration{Selector: selector, To: o.To, Since: now().UTC().Format(time.RFC3339)})
	_ = next.Put(from, true)
	return next, msg
}

// placedIn fails when no selected object is placed in cluster: there is
// nothing to migrate, and saying so beats recording a migration that does
// nothing.
func placedIn(r *cmdutil.Rendered, selected func(*federation.Object) bool, cluster, selector string) error {
	found := false
	for _, t := range r.Result.Targets {
		if selected(t.Source) {
			found = true
			if t.Cluster == cluster {
				return nil
			}
		}
	}
	if !found {
		return fmt.Errorf("no federated object of the input matches -l %s", selector)
	}
	return fmt.Errorf("no federated object that -l %s selects is placed in %s: nothing to migrate", selector, cluster)
}
