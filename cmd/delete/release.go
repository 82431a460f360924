package delete

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// ReleaseOptions are the inputs of "fedctl release".
type ReleaseOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	NewClient  func(members.Access, members.Member) (members.Client, error)

	Filenames    []string
	Recursive    bool
	Kustomize    string
	Selector     string
	Clusters     []string
	Namespace    string
	FieldManager string
	DryRun       string
	Timeout      time.Duration
	Output       string
	// ApplySet is --applyset: the set whose parent goes once the set is
	// empty in a member; NamespaceGiven says -n was given (else the
	// parent's namespace is looked up, as apply does).
	ApplySet       string
	NamespaceGiven bool
	Version        string
}

// NewCmdRelease returns "fedctl release". runF, when set, replaces Run.
func NewCmdRelease(f *cmdutil.Factory, runF func(*ReleaseOptions) error) *cobra.Command {
	opts := &ReleaseOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient, Version: f.Build.Version}
	cmd := &cobra.Command{
		Use:   "release -f FILENAME [--applyset NAME] [--cluster NAME]... [--dry-run=none|client|server]",
		Short: "Hand the member objects of federated objects over to another owner, in place",
		Long: `Give up fedctl's hold on the member objects of the given federated objects
without changing or deleting them, so that a new owner (Karmada, Argo CD,
kubectl) takes them over in place: fedctl's labels and annotations go (the
ApplySet's part-of label included), and so do fedctl's managedFields entries,
so that a server-side apply by another field manager owns every field at once,
with no conflict. Afterwards fedctl treats the objects as it treats any object
it did not create: apply reports them AlreadyExists (--adopt takes them back),
delete and prune leave them alone. It prints what it released per member.

With --applyset NAME (the set of apply --prune --applyset NAME), the set's
parent is also removed from each member once nothing is left in the set
there, so that an old pipeline's apply --prune of that set finds nothing to
act on. While the set still holds other objects, or when some of fedctl's
objects could not be read, the parent stays and the member's line says why.`,
		Example: `  # Hand the application over to Argo CD, which applies the same objects next
  fedctl release -f manifests/

  # The same, and remove the ApplySet's parent where the set is then empty
  fedctl release -f manifests/ --applyset shop -n shop`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			opts.NamespaceGiven = cmd.Flags().Changed("namespace")
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only release in this member cluster (repeatable)")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, client (read the members, send no write) or server (server-side dry run); a bare --dry-run is client")
	fl := cmd.Flags()
	fl.StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none, and of the ApplySet parent")
	fl.StringVar(&opts.ApplySet, "applyset", "", "ApplySet of apply --prune: NAME or secrets/NAME, or configmaps/NAME, in --namespace (default: the namespace where the members hold it); its parent goes where the set is then empty")
	fl.StringVar(&opts.FieldManager, "field-manager", propagate.FieldManager, "The field manager fedctl applied as, whose managedFields entries go")
	fl.DurationVar(&opts.Timeout, "timeout", propagate.DefaultTimeout, "How long each request to a member may take")
	fl.StringVarP(&opts.Output, "output", "o", "", "Print the results on standard output: json, or name")
	return cmd
}

// Validate checks the flags.
func (o *ReleaseOptions) Validate() error {
	var errs []error
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		errs = append(errs, err)
	}
	if o.Output != "" && o.Output != "json" && o.Output != "name" {
		errs = append(errs, fmt.Errorf("--output must be json or name, got %q", o.Output))
	}
	return errors.Join(errs...)
}

// Run releases.
func (o *ReleaseOptions) Run(ctx context.Context) error {
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context: ctx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize,
		Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
	})
	if err != nil {
		return err
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	clients := members.Clients(in.Federation, access, o.NewClient)
	var set *propagate.ApplySet
	if o.ApplySet != "" {
		if o.Namespace, o.NamespaceGiven, err = cmdutil.NamespaceScope(o.Federation, o.Namespace, o.NamespaceGiven); err != nil {
			return err
		}
		if set, err = cmdutil.ApplySetFromFlags(true, o.ApplySet, o.Namespace, o.Version); err != nil {
			return cmdutil.FlagErrorWrap(err)
		}
		if !o.NamespaceGiven {
			if err := cmdutil.FindApplySetNamespace(ctx, o.IO.ErrOut, set, in.Clusters, clients, o.Timeout); err != nil {
				return err
			}
		}
	}
	if o.DryRun == cmdutil.DryRunClient {
		clients = propagate.ReadOnly(clients)
	}
	stream := cmdutil.NewResultStream(o.IO, 0, o.DryRun, in.Clusters, nil)
	report := propagate.Release(ctx, propagate.Input{Result: in.Result, Clusters: in.Clusters, Clients: clients,
		Options: propagate.Options{FieldManager: o.FieldManager, DryRun: o.DryRun == "server", OnResult: stream.OnResult, ApplySet: set}})
	stream.Close()
	switch o.Output {
	case "json":
		if err := report.WriteJSON(o.IO.Out); err != nil {
			return err
		}
	case "name":
		if err := cmdutil.WriteNames(o.IO.Out, report); err != nil {
			return err
		}
	}
	cs := o.IO.ErrColorScheme()
	for _, c := range report.Clusters {
		n := 0
		parent := ""
		for _, obj := range c.Objects {
			switch {
			case set != nil && obj.Kind == set.Kind() && obj.Namespace == set.Namespace && obj.Name == set.Name && obj.FederatedObject == "":
				parent = "; ApplySet parent " + set.Ref() + " removed"
				if obj.Action != propagate.Deleted {
					parent = "; " + obj.Error
				}
			case obj.Action == propagate.Released:
				n++
			}
		}
		icon := cs.SuccessIcon()
		msg := fmt.Sprintf("%d objects released%s", n, parent)
		if c.Error != "" {
			icon, msg = cs.FailureIcon(), msg+": "+c.Error
		}
		fmt.Fprintf(o.IO.ErrOut, "%s cluster %s: %s\n", icon, c.Cluster, msg)
	}
	if p := report.Panic(); p != nil {
		return p
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return cmdutil.MembersError(report.Failed(), report.NothingDone())
}
