// Package delete implements "fedctl delete".
package delete

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// DeleteOptions are the inputs of "fedctl delete".
type DeleteOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	// NewClient returns the Client of one member; tests replace it.
	NewClient func(members.Access, members.Member) (members.Client, error)

	Filenames []string
	// AllowEmpty accepts a run with nothing to do (--allow-empty).
	AllowEmpty  bool
	Recursive   bool
	Kustomize   string
	Selector    string
	Clusters    []string
	Namespace   string
	Cascade     string
	DryRun      string
	Concurrency int
	// Timeout bounds each request to a member; Deadline, when set, the
	// whole run; QPS and Burst the requests to members without API
	// Priority and Fairness (see cmdutil.MemberTimeFlags).
	Timeout  time.Duration
	Deadline time.Duration
	QPS      float32
	Burst    int
	Output   string
	// Verbosity is -v (1: unchanged lines too; 4: timings per member).
	Verbosity int
	// Rollout deletes wave by wave, last wave first (--rollout).
	Rollout cmdutil.RolloutFlags
	// DNS says where the DNSEndpoints of the input's DNS records are
	// (--dns-context; its other fields are unused).
	DNS cmdutil.DNSFlags
	// KeepDNS leaves the DNSEndpoints in place (--keep-dns): for a DNS
	// cluster that is gone for good, which would otherwise stop every
	// deletion.
	KeepDNS bool
	// clientSet are the run's clients of the members (runClients).
	clientSet *cmdutil.MemberClients
}

// runClients are the run's clients of the members, one per member, shared
// by the deletion and the DNS step: with the time flags and, at -v 4 and
// up, request stats.
func (o *DeleteOptions) runClients() *cmdutil.MemberClients {
	if o.clientSet == nil {
		o.clientSet = cmdutil.TimedMemberClients(o.Access, o.NewClient, o.timeFlags(), o.Verbosity)
	}
	return o.clientSet
}

func (o *DeleteOptions) timeFlags() cmdutil.MemberTimeFlags {
	return cmdutil.MemberTimeFlags{Timeout: &o.Timeout, Deadline: &o.Deadline, QPS: &o.QPS, Burst: &o.Burst}
}

// NewCmdDelete returns the delete command. runF, when set, replaces Run.
func NewCmdDelete(f *cmdutil.Factory, runF func(*DeleteOptions) error) *cobra.Command {
	opts := &DeleteOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "delete -f FILENAME [--cluster NAME]... [--cascade=background|foreground|orphan]",
		Short: "Delete the member objects of federated objects",
		Long: `Delete, from every member cluster that holds them, the member objects fedctl
created for the federated objects in the given manifests, wherever they are
placed now. Only objects that carry fedctl's markers are deleted; objects
labelled kubefed.io/managed: "false" are never touched.

As in KubeFed, a federated object annotated kubefed.io/orphan: "true" keeps
its member objects running: only fedctl's labels and annotations are removed
from them. The DeleteOptions in its kubefed.io/deleteoption annotation (JSON)
are used for its objects; otherwise --cascade sets the propagation policy.

A member that cannot be reached never blocks the others. Each object
removed is named on standard error as it happens, kubectl-style with the
cluster first:

    cluster1  deployment.apps/web deleted

then comes one summary line per member. -o name prints "CLUSTER
kind.group/NAME" per object on standard output; -v 4 adds each member's
requests, writes and time.

--timeout bounds each request (alias --request-timeout); --deadline, when
given, the whole run (what is left then is reported not attempted).

The DNSEndpoints fedctl wrote for the input's DNS records are deleted first,
in the cluster the Domain's spec.context or --dns-context names (not with
--cluster, as the records still serve the other members). Records with no
such cluster, a cluster that cannot be opened, or a DNS deletion that fails
stop the command before any member is touched; --keep-dns leaves the
DNSEndpoints where they are (a DNS cluster gone for good) and deletes the
members' objects all the same. With --rollout the records are written again
without each wave's targets before it is deleted, and deleted before the
last wave.

--dry-run=client reads the members and lists what would be deleted, sending
no write; --dry-run=server sends every deletion as a server-side dry run.

Exit status: 0 when every member is done, 3 when some members or objects
failed (the others are done), 1 when nothing could be done.`,
		Example: `  # Delete everything the manifests propagated
  fedctl delete -f manifests/

  # See what would be deleted in eu-1, without deleting it
  fedctl delete -f manifests/ --cluster eu-1 --dry-run=server

  # The objects deleted, one "CLUSTER kind.group/NAME" per line, within 5 minutes
  fedctl delete -f manifests/ -o name --deadline 5m`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Verbosity = cmdutil.VerbosityOf(f)
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if err := opts.Validate(); err != nil {
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
	cmdutil.AddAllowEmptyFlag(cmd, &opts.AllowEmpty)
	cmdutil.AddRolloutFlags(cmd, &opts.Rollout, "delete")
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only delete from this member cluster (repeatable)")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, client (read the members, send no write) or server (server-side dry run); a bare --dry-run is client")
	fl := cmd.Flags()
	fl.StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	fl.StringVar(&opts.Cascade, "cascade", "background", "Propagation policy: background, foreground or orphan (dependents)")
	fl.IntVar(&opts.Concurrency, "concurrency", propagate.DefaultConcurrency, "Member clusters handled at once")
	fl.BoolVar(&opts.KeepDNS, "keep-dns", false, "Leave the DNSEndpoints of the input's DNS records in place and delete the members' objects all the same (a DNS cluster gone for good): the names keep pointing at what is deleted")
	fl.StringVar(&opts.DNS.Context, "dns-context", "", "Where ExternalDNS runs (a member or a kubeconfig context): the DNSEndpoints of the input's DNS records are deleted there (default: the Domain's spec.context)")
	cmdutil.AddMemberTimeFlags(cmd, opts.timeFlags())
	fl.StringVarP(&opts.Output, "output", "o", "", "Print the results on standard output: json, or name (CLUSTER kind.group/NAME per object)")
	_ = cmd.RegisterFlagCompletionFunc("cascade", cobra.FixedCompletions([]string{"background", "foreground", "orphan"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// cascades maps --cascade to the API's propagation policies.
var cascades = map[string]metav1.DeletionPropagation{
	"background": metav1.DeletePropagationBackground,
	"foreground": metav1.DeletePropagationForeground,
	"orphan":     metav1.DeletePropagationOrphan,
}

// Validate checks the flags.
func (o *DeleteOptions) Validate() error {
	var errs []error
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		errs = append(errs, err)
	}
	if _, ok := cascades[o.Cascade]; !ok {
		errs = append(errs, fmt.Errorf("--cascade must be background, foreground or orphan, got %q", o.Cascade))
	}
	if o.DryRun != cmdutil.DryRunNone && o.DryRun != cmdutil.DryRunClient && o.DryRun != cmdutil.DryRunServer {
		errs = append(errs, fmt.Errorf("--dry-run must be none, client or server, got %q", o.DryRun))
	}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency))
	}
	errs = append(errs, o.timeFlags().Validate()...)
	errs = append(errs, o.Rollout.Validate()...)
	if o.Rollout.Enabled && len(o.Clusters) > 0 {
		errs = append(errs, errors.New("--rollout cannot be used with --cluster: the waves say which members, and when"))
	}
	if o.Output != "" && o.Output != "json" && o.Output != "name" {
		errs = append(errs, fmt.Errorf("--output must be json or name, got %q", o.Output))
	}
	return errors.Join(errs...)
}

// Run reads the federated objects, then removes their member objects.
func (o *DeleteOptions) Run(ctx context.Context) error {
	start := time.Now()
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context: ctx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
		AllowEmpty: o.AllowEmpty,
	})
	if err != nil {
		return err // nothing is sent for an input with errors
	}
	fed, res, clusters := in.Federation, in.Result, in.Clusters
	dnsCluster, err := o.dnsCluster(in)
	if err != nil {
		return err // before any deletion
	}
	clients, err := o.runClients().Of(fed)
	if err != nil {
		return err
	}
	if o.Rollout.Enabled {
		return o.rollout(ctx, in, clients, start, dnsCluster)
	}
	// First, so that no name points at a load balancer about to go; when
	// that fails, the members are not touched.
	if err := o.deleteDNS(ctx, in, dnsCluster); err != nil {
		return fmt.Errorf("%w; nothing was deleted in the members, so that no name points at a load balancer that is gone: run it again once the DNS cluster answers, or with --keep-dns to leave the DNS records", err)
	}
	stats := o.runClients().Stats()
	// Delete has no totals ahead of the listing: the progress counts up.
	stream := cmdutil.NewResultStream(o.IO, o.Verbosity, o.DryRun, clusters, nil)
	del := propagate.Delete
	if o.DryRun == cmdutil.DryRunClient {
		del = propagate.PlanDelete
	}
	report := del(ctx, propagate.Input{
		Result:   res,
		Clusters: clusters,
		Clients:  clients,
		Options: propagate.Options{
			DryRun:      o.DryRun == "server",
			Concurrency: o.Concurrency,
			Deadline:    o.Deadline,
			Start:       start,
			Cascade:     cascades[o.Cascade],
			OnResult:    stream.OnResult,
		},
	})
	stream.Close()
	if stats != nil {
		cmdutil.WriteTimings(o.IO.ErrOut, report, stats)
	}
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
	cmdutil.WriteSummary(o.IO.ErrOut, o.IO.ErrColorScheme(), report)
	if p := report.Panic(); p != nil {
		return p // a bug: cmd.Main reports it, exit 1
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return cmdutil.MembersError(report.Failed(), report.NothingDone())
}
