// Package apply implements "fedctl apply".
package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/status"
)

// ApplyOptions are the inputs of "fedctl apply".
type ApplyOptions struct {
	// Plan is --offline-plan and --no-failover.
	Plan       cmdutil.PlanFlags
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	// NewClient returns the Client of one member; tests replace it.
	NewClient func(members.Access, members.Member) (members.Client, error)

	Filenames []string
	Recursive bool
	Kustomize string
	Selector  string
	Clusters  []string
	Namespace string
	// NamespaceGiven says -n was given: without it, the namespace of the
	// --applyset parent is looked up in the members.
	NamespaceGiven bool
	DryRun         string
	FieldManager   string
	ForceConflicts bool
	Adopt          bool
	Concurrency    int
	// Timeout bounds each request to a member (--timeout,
	// --request-timeout); Deadline, when set, the whole run (--deadline).
	Timeout  time.Duration
	Deadline time.Duration
	// QPS and Burst bound the requests to members without API Priority
	// and Fairness (--qps, --burst); zero means members' defaults.
	QPS    float32
	Burst  int
	Output string
	// Verbosity is -v: 1 a line per object, unchanged ones too; 4 timings
	// per member (6 and 8, the request log, are members.Access's).
	Verbosity int
	// Prune, with ApplySet (--applyset), deletes the objects of the set
	// whose federated objects left the input.
	Prune    bool
	ApplySet string
	// AllowEmpty lets a run with nothing to do through (no members, no
	// federated objects). With --prune an empty input would delete every
	// object of the set, which is why it needs saying.
	AllowEmpty bool
	// MaxDeletions bounds the deletions in one member; -1: no bound.
	MaxDeletions int
	// Version is fedctl's, for the ApplySet's tooling annotation.
	Version string
	// Wait waits until every applied object is Current; WaitTimeout bounds
	// the wait: what --deadline leaves, else --timeout when given, else
	// DefaultWaitTimeout.
	Wait        bool
	WaitTimeout time.Duration
	// Rollout goes wave by wave (--rollout and its flags).
	Rollout cmdutil.RolloutFlags
	// DNS shapes the DNSEndpoints of the input's DNS records.
	DNS cmdutil.DNSFlags
	// clientSet are the run's clients of the members (runClients).
	clientSet *cmdutil.MemberClients
}

// DefaultWaitTimeout bounds --wait when --timeout is not given: rollouts
// take minutes, where one member's apply takes seconds.
const DefaultWaitTimeout = 5 * time.Minute

// DefaultMaxDeletions is --max-deletions' default. kubectl has no such
// bound, and a wrong -f path with --prune then deletes a whole set; 100
// objects per member is more than a routine change removes, and far less
// than an application.
const DefaultMaxDeletions = 100

// NewCmdApply returns the apply command. runF, when set, replaces Run.
func NewCmdApply(f *cmdutil.Factory, runF func(*ApplyOptions) error) *cobra.Command {
	opts := &ApplyOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient, Version: f.Build.Version}
	cmd := &cobra.Command{
		Use:   "apply -f FILENAME [--cluster NAME]... [--dry-run=none|client|server]",
		Short: "Apply federated objects to member clusters",
		Long: `Render the federated objects in the given manifests and push the member
objects to every member cluster with server-side apply (field manager
"fedctl"). Members are synced in parallel; one that fails never stops the
others.

Before the first write to a member, every type its objects need is looked up
there; a member that lacks one is not written to at all. Inside a member,
Namespaces and CRDs go first, then the rest in install order.

A re-apply of unchanged objects sends no write: fedctl reads what it manages
with one labelled LIST per type and compares with the hash and generation it
recorded on each object. An object of a federated object in the input that is
no longer placed in a member is deleted there, or only unmarked when the
federated object says kubefed.io/orphan: "true". Objects fedctl did not create
are never changed unless --adopt is given; objects labelled
kubefed.io/managed: "false" are never touched. A Namespace that is no longer
placed is kept while it holds objects fedctl did not create (deleting it
would delete them), and the member reports them. Objects placed nowhere only
because the input lacks their FederatedNamespace (one file of a directory
applied alone) are left as they are.

With --prune --applyset NAME, the objects fedctl applies are labelled as
members of a kubectl ApplySet (KEP-3659) whose parent, the Secret NAME (or
the ConfigMap, with configmaps/NAME) in the --namespace namespace, fedctl
creates and keeps up to date in every member; objects of the set whose
federated objects left the input are deleted there ("kubectl get secret NAME
-o yaml" shows the set). Only objects fedctl created are ever deleted, and
never one labelled kubefed.io/managed: "false". A member whose listing fails
is not pruned. --max-deletions (default 100, -1 for no bound) stops a member
with more deletions than that, de-placement and pruning together, before it
deletes any, and bounds the DNSEndpoints pruned in a DNS cluster the same
way. The namespace is part of the set's identity: without -n, fedctl
looks the parent up by name in the members and uses its namespace when it is
in exactly one (saying so on standard error); when it is in several, or in
none yet, -n is required. The DNSEndpoints of the input's DNS records are
labelled with the set too, and those whose records left the input are
deleted from the DNS cluster; the parents record the DNS cluster, so that
the set's DNSEndpoints are still pruned there once the input no longer
names it.

--dry-run=client sends no request at all and lists the objects each member
would get; it cannot tell what is new, changed or to be removed. With --prune
it reads the members and the DNS cluster, sending no write, to list what
would be deleted too.
--dry-run=server sends every write as a server-side dry run, so the API
servers validate it and nothing changes.

Each object that changes is named on standard error as it happens
("cluster1  deployment.apps/web configured"; unchanged ones too with -v 1),
with a live count per member on a terminal, then one summary line per
member; failures are listed there, identical ones as one line. -o name
prints "CLUSTER kind.group/NAME" per object on standard output. -v 4 adds
each member's requests, writes and time; -v 6 every request; -v 8 the
request bodies (Secret values redacted).

--timeout bounds each request (kubectl's --request-timeout, an alias here);
a large apply is not bounded as a whole unless --deadline says so: when it
passes, the requests in flight are cut off and what was not sent yet is
reported "not attempted: deadline reached", one line per member. Without
--deadline each member has 10m, retries included. Transient failures (429,
5xx, broken connections) are retried with backoff within that time.
Members with API Priority and Fairness (every API server since 1.20) are not
rate limited by fedctl; for others, --qps and --burst set the limit.

--wait then waits until every applied object is Current (kstatus), as
"fedctl status --wait" does, within what --deadline leaves (else within
--timeout when given, else 5m). With -o json the report then holds the
verdict: "wait": {"ready", "timedOut", "failed", "notReady": [{"cluster",
"objects"}]}.

--dry-run alone means --dry-run=client, as in kubectl (which warns that the
bare flag is deprecated).

Exit status: 0 when every member is done (and, with --wait, every object is
Current); 1 when nothing could be done, or when the wait stopped at an object
that cannot become Current; 2 for a usage error; 3 when some members or
objects failed (the others are done; this wins over 4); 4 when --wait timed
out.`,
		Example: `  # Apply to every member cluster
  fedctl apply -f manifests/

  # Only to eu-1, checked by its API server without changing it
  fedctl apply -R -f manifests/ --cluster eu-1 --dry-run=server

  # Per-cluster, per-object results for a pipeline, once everything is ready
  fedctl apply -f manifests/ -o json --wait --deadline 10m

  # The objects applied, one "CLUSTER kind.group/NAME" per line
  fedctl apply -f manifests/ -o name

  # Also delete what left manifests/ since the last apply of the set "shop"
  fedctl apply -f manifests/ --prune --applyset shop -n shop

  # A kustomize overlay, only the federated objects labelled app=web
  fedctl apply -k overlays/prod -l app=web

  # Roll out wave by wave: the staging members first, then every other member
  fedctl apply -f manifests/ --rollout --waves 'tier=staging;*'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			opts.NamespaceGiven = cmd.Flags().Changed("namespace")
			opts.WaitTimeout = DefaultWaitTimeout
			if cmd.Flags().Changed("timeout") {
				opts.WaitTimeout = opts.Timeout
			}
			opts.Verbosity = cmdutil.VerbosityOf(f)
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
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only apply to this member cluster (repeatable); DNS records are then left as they are")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, client (send no write) or server (server-side dry run); a bare --dry-run is client")
	fl := cmd.Flags()
	fl.StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none, and of the ApplySet parent")
	fl.StringVar(&opts.FieldManager, "field-manager", propagate.FieldManager, "Field manager of the server-side applies")
	fl.BoolVar(&opts.ForceConflicts, "force-conflicts", false, "Take over fields that other field managers own")
	fl.BoolVar(&opts.Adopt, "adopt", false, "Take over existing objects that fedctl did not create")
	fl.IntVar(&opts.Concurrency, "concurrency", propagate.DefaultConcurrency, "Member clusters synced at once")
	cmdutil.AddPlanFlags(cmd, &opts.Plan)
	cmdutil.AddMemberTimeFlags(cmd, opts.timeFlags())
	fl.BoolVar(&opts.Wait, "wait", false, "Wait until every applied object is Current in every member (kstatus), as fedctl status --wait")
	fl.StringVarP(&opts.Output, "output", "o", "", "Print the results on standard output: json, or name (CLUSTER kind.group/NAME per object)")
	fl.BoolVar(&opts.Prune, "prune", false, "Delete the objects of the --applyset set whose federated objects left the input")
	fl.StringVar(&opts.ApplySet, "applyset", "", "ApplySet parent for --prune: NAME or secrets/NAME (a Secret), or configmaps/NAME, in --namespace (default: the namespace where the members hold it)")
	cmdutil.AddAllowEmptyFlag(cmd, &opts.AllowEmpty)
	cmdutil.AddRolloutFlags(cmd, &opts.Rollout, "apply")
	cmdutil.AddDNSFlags(cmd, &opts.DNS)
	cmdutil.AddDNSForgetFlag(cmd, &opts.DNS)
	fl.IntVar(&opts.MaxDeletions, "max-deletions", DefaultMaxDeletions, "Most objects deleted in one member cluster (de-placement and pruning); -1 for no limit")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// live reads the members' state for plans, unless --dry-run=client plans
// offline (it reaches no member).
func (o *ApplyOptions) live() cmdutil.LiveFunc {
	if o.DryRun == "client" {
		return nil
	}
	return cmdutil.LiveReader(o.runClients(), o.Timeout, o.Plan)
}

// runClients are the run's clients of the members, one per member, shared
// by the live read, the push, the wait and the DNS step: with the time
// flags and, at -v 4 and up, request stats.
func (o *ApplyOptions) runClients() *cmdutil.MemberClients {
	if o.clientSet == nil {
		o.clientSet = cmdutil.TimedMemberClients(o.Access, o.NewClient, o.timeFlags(), o.Verbosity)
	}
	return o.clientSet
}

func (o *ApplyOptions) timeFlags() cmdutil.MemberTimeFlags {
	return cmdutil.MemberTimeFlags{Timeout: &o.Timeout, Deadline: &o.Deadline, QPS: &o.QPS, Burst: &o.Burst}
}

// Validate checks the flags.
func (o *ApplyOptions) Validate() error {
	var errs []error
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		errs = append(errs, err)
	}
	if err := cmdutil.CheckPruneSelector(o.Prune, o.Selector); err != nil {
		errs = append(errs, err)
	}
	if o.DryRun != "none" && o.DryRun != "client" && o.DryRun != "server" {
		errs = append(errs, fmt.Errorf("--dry-run must be none, client or server, got %q", o.DryRun))
	}
	if o.FieldManager == "" {
		errs = append(errs, errors.New("--field-manager must not be empty"))
	}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency))
	}
	errs = append(errs, o.timeFlags().Validate()...)
	if o.Output != "" && o.Output != "json" && o.Output != "name" {
		errs = append(errs, fmt.Errorf("--output must be json or name, got %q", o.Output))
	}
	if o.MaxDeletions < -1 {
		errs = append(errs, fmt.Errorf("--max-deletions must be -1 (no limit) or more, got %d", o.MaxDeletions))
	}
	errs = append(errs, o.Rollout.Validate()...)
	if err := o.DNS.Validate(o.Prune, o.Clusters); err != nil {
		errs = append(errs, err)
	}
	if o.Rollout.Enabled && len(o.Clusters) > 0 {
		errs = append(errs, errors.New("--rollout cannot be used with --cluster: the waves say which members, and when"))
	}
	if o.Wait && o.DryRun != "none" {
		errs = append(errs, errors.New("--wait cannot be used with --dry-run: nothing would become ready"))
	}
	if _, err := o.applySet(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// applySet is the ApplySet of --prune --applyset; nil without --prune.
func (o *ApplyOptions) applySet() (*propagate.ApplySet, error) {
	return cmdutil.ApplySetFromFlags(o.Prune, o.ApplySet, o.Namespace, o.Version)
}

// Run renders, then propagates. Problems in the input stop it before any
// request is sent; a member that fails is reported and the others go on.
func (o *ApplyOptions) Run(ctx context.Context) error {
	var err error
	if o.Namespace, o.NamespaceGiven, err = cmdutil.NamespaceScope(o.Federation, o.Namespace, o.NamespaceGiven); err != nil {
		return err
	}
	start := time.Now()
	set, _ := o.applySet() // checked by Validate
	var emptyErr error
	if set != nil {
		emptyErr = cmdutil.EmptySelectionError(cmdutil.Source{Filenames: o.Filenames, Kustomize: o.Kustomize}, fmt.Sprintf("with --prune this would delete every object of the ApplySet %s in every member cluster (--max-deletions still applies)", set.Ref()))
	}
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context: ctx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
		AllowEmpty: o.AllowEmpty, EmptyInputErr: emptyErr,
		Live: o.live(),
	})
	if err != nil {
		return err // nothing is sent for an input with errors
	}
	fed, res, clusters := in.Federation, in.Result, in.Clusters
	named, err := o.dnsCluster(in, set)
	if err != nil {
		return err // checked before the first write
	}
	dns := cmdutil.DNSClusters{Cluster: named}
	var maxDeletions *int
	if o.MaxDeletions >= 0 {
		maxDeletions = &o.MaxDeletions
	}
	if o.Rollout.Enabled {
		return o.rollout(ctx, in, set, named, maxDeletions, start)
	}
	var report *propagate.Report
	var clients func(string) (members.Client, error)
	if o.DryRun == "client" && set == nil {
		report = propagate.Plan(res, clusters)
	} else {
		var stats *members.RequestStats
		var err error
		if clients, stats, err = o.memberClients(in); err != nil {
			return err
		}
		if set != nil && !o.NamespaceGiven {
			if err := cmdutil.FindApplySetNamespace(ctx, o.IO.ErrOut, set, clusters, clients, o.Timeout); err != nil {
				return err
			}
		}
		if set != nil && len(o.Clusters) == 0 { // --cluster leaves DNS out (dnsCluster)
			if err := dns.Check(ctx, o.dnsCheck(in, set, clients), clusters); err != nil {
				return err
			}
		}
		run := propagate.Run
		if o.DryRun == "client" {
			run = propagate.PlanLive // reads, to find what --prune would delete
		}
		dry := o.DryRun
		if dry == "client" {
			dry = "none" // PlanLive reads only, and reports nothing as it goes
		}
		stream := cmdutil.NewResultStream(o.IO, o.Verbosity, dry, clusters, res.Targets)
		var onResult func(string, propagate.ObjectResult)
		if o.DryRun != "client" {
			onResult = stream.OnResult
		}
		report = run(ctx, propagate.Input{
			Result:   res,
			Clusters: clusters,
			Clients:  clients,
			Options: propagate.Options{
				Cordoned:     fed.CordonedNames(),
				FieldManager: o.FieldManager,
				Force:        o.ForceConflicts,
				Adopt:        o.Adopt,
				DryRun:       o.DryRun == "server",
				Concurrency:  o.Concurrency,
				Deadline:     o.Deadline,
				Start:        start,
				ApplySet:     set,
				MaxDeletions: maxDeletions,
				OnResult:     onResult,
			},
		})
		stream.Close()
		if stats != nil {
			cmdutil.WriteTimings(o.IO.ErrOut, report, stats)
		}
	}
	if o.Output == "name" {
		if err := cmdutil.WriteNames(o.IO.Out, report); err != nil {
			return err
		}
	}
	cmdutil.WriteSummary(o.IO.ErrOut, o.IO.ErrColorScheme(), report)
	if p := report.Panic(); p != nil {
		o.writeJSON(report, nil)
		return p // a bug: cmd.Main reports it, exit 1
	}
	if err := ctx.Err(); err != nil {
		o.writeJSON(report, nil)
		return err
	}
	applyErr := cmdutil.MembersError(report.Failed(), report.NothingDone())
	if !o.Wait {
		return errors.Join(applyErr, o.writeDNS(ctx, in, dns, set, clients), o.writeJSON(report, nil))
	}
	if o.Deadline > 0 {
		left, err := remaining(o.Deadline, start)
		if err != nil {
			return errors.Join(applyErr, err, o.writeJSON(report, nil))
		}
		o.WaitTimeout = left
	}
	verdict, waitErr := o.wait(ctx, res, in.Federation.CordonedNames(), report, clients)
	// After the wait, so that the Services have their load balancers.
	dnsErr := o.writeDNS(ctx, in, dns, set, clients)
	return errors.Join(applyErr, cmdutil.WaitError(waitErr), dnsErr, o.writeJSON(report, verdict))
}

// memberClients are the members' clients, with the time flags and, at -v
// 4, request statistics; a member a live plan found not answering gets
// none (members.AnsweringOnly).
func (o *ApplyOptions) memberClients(in *cmdutil.Rendered) (func(string) (members.Client, error), *members.RequestStats, error) {
	clients, err := o.runClients().ForRendered(in)
	return clients, o.runClients().Stats(), err
}

// JSONReport is apply's -o json: propagate's report and, with --wait, the
// wait's verdict ("wait": ready, timedOut, failed and the member objects
// not Current by cluster; absent when nothing was waited for).
type JSONReport struct {
	*propagate.Report
	Wait *status.Verdict `json:"wait,omitempty"`
}

// writeJSON writes the -o json report, once everything is known.
func (o *ApplyOptions) writeJSON(report *propagate.Report, verdict *status.Verdict) error {
	if o.Output != "json" {
		return nil
	}
	enc := json.NewEncoder(o.IO.Out)
	enc.SetIndent("", "  ") // as propagate.Report.WriteJSON, which delete uses
	return enc.Encode(JSONReport{Report: report, Wait: verdict})
}

// remaining is what is left of --deadline d of a run that began at start
// (0 without a deadline), an error once it has passed.
func remaining(d time.Duration, start time.Time) (time.Duration, error) {
	if d <= 0 {
		return 0, nil
	}
	left := d - time.Since(start)
	if left <= 0 {
		return 0, fmt.Errorf("deadline reached (--deadline %s)", d)
	}
	return left, nil
}

// wait waits, with status.Wait, until the objects of the members that
// could be reached are Current. A member that failed as a whole is already
// reported, and waiting for it could only time out; an object that failed
// to apply (still NotApplied) cannot become Current and ends the wait at
// once (status.WaitInput.Applied), as an object a cordon keeps out is
// not waited for.
func (o *ApplyOptions) wait(ctx context.Context, res *render.Result, cordoned []string, report *propagate.Report, clients func(string) (members.Client, error)) (*status.Verdict, error) {
	var ok []string
	for _, c := range report.Clusters {
		if c.Error == "" {
			ok = append(ok, c.Cluster)
		}
	}
	if len(ok) == 0 {
		return nil, nil
	}
	wctx, cancel := context.WithTimeout(ctx, o.WaitTimeout)
	defer cancel()
	_, err := status.Wait(wctx, status.WaitInput{
		Input:    &status.Input{Result: res, Clusters: ok, Clients: clients, Concurrency: o.Concurrency, Timeout: o.Timeout, Cordoned: cordoned},
		Progress: o.IO.ErrOut, Live: o.IO.IsStderrTTY(), ColorScheme: o.IO.ErrColorScheme(),
		Applied: true,
	})
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	return status.VerdictOf(err), err
}
