// Package status implements "fedctl status".
package status

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/rollout"
	"github.com/fedctl/fedctl/pkg/status"
)

// Defaults of --timeout.
const (
	defaultReadTimeout = status.DefaultTimeout
	defaultWaitTimeout = 5 * time.Minute
)

// StatusOptions are the inputs of "fedctl status".
type StatusOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	// NewClient returns the Client of one member; tests replace it.
	NewClient func(members.Access, members.Member) (members.Client, error)

	Filenames []string
	// AllowEmpty accepts a run with nothing to do (--allow-empty).
	AllowEmpty bool
	Recursive  bool
	Kustomize  string
	Selector   string
	// TypeName and Name are the TYPE NAME form.
	TypeName  string
	Name      string
	Clusters  []string
	Namespace string
	// Print are kubectl's output flags: -o, --no-headers, --show-labels,
	// -L, --sort-by, --template.
	Print *cmdutil.PrintFlags
	Wait  bool
	// ExitCode makes member objects out of sync (Drifted, NotApplied) exit
	// 1 (--exit-code).
	ExitCode    bool
	Timeout     time.Duration
	Interval    time.Duration
	Concurrency int
}

// NewCmdStatus returns the status command. runF, when set, replaces Run.
func NewCmdStatus(f *cmdutil.Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient, Print: cmdutil.NewPrintFlags("wide", "yaml", "json", "name")}
	cmd := &cobra.Command{
		Use:   "status (-f FILENAME | TYPE NAME) [--cluster NAME]... [--wait]",
		Short: "Show where federated objects are propagated and whether they are ready",
		Long: `Show, for each federated object and member cluster, the propagation status
in KubeFed's vocabulary and the readiness of the member object, read from the
members themselves: one labelled LIST per type and member, members in
parallel.

PROPAGATION is OK when the member object is what "fedctl apply" would send;
otherwise KubeFed's status where it applies client side (ClusterNotReady,
AlreadyExists, ManagedLabelFalse, ApplyOverridesFailed, RetrievalFailed,
WaitingForRemoval) or fedctl's own: Drifted (the manifests or the object
changed since the last apply; apply would write it), NotApplied (placed but
absent), TypeNotServed (the member lacks the type) and Cordoned (the member
is cordoned, so apply neither creates the object there nor removes it). A
federated object
placed nowhere shows its reason: ComputePlacementFailed or
NamespaceNotFederated. READINESS is kstatus's: Current, InProgress, Failed,
Terminating or NotFound (Unknown when the member cannot be read), with the
desired and ready replicas of scalable types. A roll-up line goes to standard
error. -o yaml|json prints KubeFed's status shape (conditions[type=Propagation],
clusters[].name/status) plus readiness; -o name lists the federated objects.
kubectl's output flags work as in kubectl get: -o jsonpath= and go-template=
address the document -o json prints; -o custom-columns= and --sort-by
address each row: the object as -o json prints it with "cluster" holding
that member's entry of status.clusters; -L and --show-labels show the
federated object's labels; --no-headers. With DNS records in the input, a
second table gives each record's targets per member (not with --no-headers).

With TYPE NAME (federateddeployments, fdeploy or FederatedDeployment) no
manifest is read: the member objects are found by their
fedctl.io/federated-object annotation. That form shows where the object is
and how ready it is, and Drifted when someone changed its spec since fedctl
applied it; it cannot tell where the object should be, whether the manifests
changed, nor AlreadyExists, ApplyOverridesFailed or NamespaceNotFederated.
Nor does it know retainReplicas: an autoscaler's scaling shows as Drifted
there, where status -f leaves it out.

--wait reads again every second until every placed member object is Current
and holds the input (a Drifted one runs an older or edited version, whatever
its readiness; an object a cordon keeps out, and one labelled
kubefed.io/managed: "false", are not waited for; with TYPE NAME, an object
no member holds yet is waited for until one does), with
progress on standard error, and fails when one is Failed or cannot become
Current, or when --timeout (default 5m) passes; --timeout bounds the whole
run, the live read of replica state included.

Exit status: 0 when every member could be read (whatever the objects' states,
unless --exit-code) and, with --wait, every member object is Current; 3 when
some members, or some objects in a member (RetrievalFailed), could not be
read, whatever else happened (what they hold is unknown); 1 when none could,
when the input has errors, when TYPE NAME is in no member, and when --wait
stops at an object that cannot become Current; 4 when --wait times out; 2
for a usage error. With --exit-code, a member object
that is Drifted or NotApplied (apply would write it) or WaitingForRemoval
(apply would delete it) makes the exit status 1, for a CI gate.`,
		Example: `  # Status of everything in a directory, in every member
  fedctl status -f manifests/

  # With reasons and messages, for one member
  fedctl status -f manifests/ -o wide --cluster eu-1

  # One federated object, without its manifests
  fedctl status fdeploy web -n shop

  # Block until every member object is ready, for a pipeline
  fedctl status -f manifests/ --wait --timeout 10m

  # Fail a pipeline when a member object drifted or was never applied
  fedctl status -f manifests/ --exit-code

  # Ready replicas per member, least ready first
  fedctl status -f manifests/ -o custom-columns=NAME:.metadata.name,CLUSTER:.cluster.name,READY:.cluster.readyReplicas --sort-by .cluster.readyReplicas`,
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.TypeNames(f, true, toComplete), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			switch len(args) {
			case 0:
			case 2:
				opts.TypeName, opts.Name = args[0], args[1]
			default:
				return cmdutil.FlagErrorf("%q takes TYPE NAME or -f FILENAME, got %d argument(s)", cmd.CommandPath(), len(args))
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
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only read this member cluster (repeatable)")
	fl := cmd.Flags()
	fl.StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none, and of TYPE NAME")
	opts.Print.AddFlags(cmd)
	fl.BoolVar(&opts.Wait, "wait", false, "Wait until every placed member object is Current")
	fl.BoolVar(&opts.ExitCode, "exit-code", false, "Exit 1 when a member object is Drifted, NotApplied or WaitingForRemoval (3 still means a member could not be read)")
	fl.DurationVar(&opts.Timeout, "timeout", 0, "With --wait, how long the whole run may take, the live read of replica state and the wait included (default 5m); otherwise the time allowed for each member (default 30s)")
	fl.DurationVar(&opts.Interval, "poll-interval", status.DefaultInterval, "With --wait, time between reads")
	fl.IntVar(&opts.Concurrency, "concurrency", status.DefaultConcurrency, "Member clusters read at once")
	_ = fl.MarkHidden("poll-interval")
	return cmd
}

// Validate checks the flags and arguments.
func (o *StatusOptions) Validate() error {
	var errs []error
	switch {
	case len(o.Filenames) == 0 && o.Kustomize == "" && o.TypeName == "":
		errs = append(errs, errors.New("give -f FILENAME (a file, a directory, an http(s) URL or -), -k DIR or TYPE NAME"))
	case (len(o.Filenames) > 0 || o.Kustomize != "") && o.TypeName != "":
		errs = append(errs, errors.New("give either -f FILENAME (or -k DIR) or TYPE NAME, not both"))
	case len(o.Filenames) > 0 && o.Kustomize != "":
		errs = append(errs, errors.New("-f and -k cannot be used together"))
	case o.Selector != "" && o.TypeName != "":
		errs = append(errs, errors.New("-l selects federated objects of -f or -k; TYPE NAME names one member object already"))
	}
	if err := o.Print.Validate(); err != nil {
		errs = append(errs, err)
	}
	if o.Timeout < 0 {
		errs = append(errs, fmt.Errorf("--timeout must be positive, got %s", o.Timeout))
	}
	if o.Interval <= 0 {
		errs = append(errs, fmt.Errorf("--poll-interval must be positive, got %s", o.Interval))
	}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency))
	}
	return errors.Join(errs...)
}

// Run reads the members (and waits, with --wait), prints the report and
// turns it into an exit status.
func (o *StatusOptions) Run(ctx context.Context) error {
	readTimeout := o.Timeout
	if o.Wait || readTimeout == 0 {
		readTimeout = defaultReadTimeout
	}
	// With --wait, --timeout bounds the whole run, not the wait alone:
	// the live read that plans the replicas, the wait and the DNS read
	// share one deadline, so that a member that never answers costs
	// --timeout once, not at each of the three. The live read (a probe,
	// then a read, each bounded by probeTimeout) takes at most half of
	// it, so that the wait always has the other half.
	runCtx, probeTimeout := ctx, cmdutil.ProbeTimeout(o.Timeout)
	if o.Wait {
		timeout := cmp.Or(o.Timeout, defaultWaitTimeout)
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
		// a quarter each for the probe and the read that follows it
		probeTimeout = min(cmdutil.ProbeTimeout(0), timeout/4)
	}
	// One Client per member for the whole run, so that the live read and
	// --wait discover each member's types once rather than at every read.
	runClients := cmdutil.NewMemberClients(o.Access, o.NewClient, cmdutil.Tuning{Timeout: readTimeout})
	var m *cmdutil.Membership
	var in *status.Input
	var rendered *cmdutil.Rendered
	var lookup *status.LookupInput
	if o.TypeName != "" {
		var err error
		if m, err = cmdutil.LoadMembership(o.Federation, o.Clusters, o.AllowEmpty); err != nil {
			return err
		}
		t, err := federatedType(m.Types, o.TypeName)
		if err != nil {
			return err
		}
		ns, err := cmdutil.ScopedNamespace(m.Federation, o.Namespace)
		if err != nil {
			return err
		}
		lookup = &status.LookupInput{Type: t, Namespace: ns, Name: o.Name, Clusters: m.Clusters, Concurrency: o.Concurrency}
	} else {
		// Input errors (reading, decoding) fail the command; what render
		// found per object is reported as status.
		r, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
			Context: runCtx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
			AllowEmpty: o.AllowEmpty,
			Failing:    cmdutil.FailOnDecode,
			Live:       cmdutil.LiveReader(runClients, probeTimeout, cmdutil.PlanFlags{}),
		})
		if err != nil {
			return err
		}
		m, rendered = r.Membership, r
		in = &status.Input{Result: r.Result, Clusters: m.Clusters, Concurrency: o.Concurrency, Cordoned: m.Federation.CordonedNames()}
	}
	fed, clusters := m.Federation, m.Clusters

	clients, err := runClients.Of(fed)
	if err != nil {
		return err
	}
	if in != nil {
		in.Clients, in.Timeout = clients, readTimeout
	} else {
		lookup.Clients, lookup.Timeout = clients, readTimeout
	}

	var report *status.Report
	var waitErr error
	switch {
	case o.Wait:
		report, waitErr = status.Wait(runCtx, status.WaitInput{
			Input: in, Lookup: lookup, Interval: o.Interval,
			Progress: o.IO.ErrOut, Live: o.IO.IsStderrTTY(), ColorScheme: o.IO.ErrColorScheme(),
		})
	case in != nil:
		report = status.Read(ctx, *in)
	default:
		report = status.Lookup(ctx, *lookup)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	var notFound error
	if lookup != nil && len(report.Unreachable) < len(clusters) && len(report.Items[0].Status.Clusters) == len(report.Unreachable) {
		if len(report.Unreachable) == 0 {
			err := fmt.Errorf("no member cluster holds an object of %s; check the name and namespace (-n), or apply it with \"fedctl apply -f FILE\"", lookup.Source())
			var nr *status.NotReadyError
			if errors.As(waitErr, &nr) && nr.TimedOut { // waited for it to appear until --timeout
				return &cmdutil.TimeoutError{Err: fmt.Errorf("timed out waiting: %w", err)}
			}
			return err
		}
		// Found nowhere it could look: the members that could not be
		// read may hold it, so the report names them and the exit is 3.
		read := len(clusters) - len(report.Unreachable)
		notFound = &cmdutil.ExitError{Code: cmdutil.ExitPartial, Err: fmt.Errorf("none of the %d member cluster(s) read holds an object of %s; %d could not be read and may: %s",
			read, lookup.Source(), len(report.Unreachable), strings.Join(report.Failed(), ", "))}
	}
	if plan, err := rollout.FromFile(m.File, ""); err == nil {
		report.SetWaves(plan.WaveOf) // a federation without waves shows none
	}
	if err := o.print(report); err != nil {
		return err
	}
	if rendered != nil && rendered.Set.DNS.Records() && o.Print.IsTable() && !o.Print.NoHeaders {
		// not with --no-headers: a script reads the objects' rows, and
		// a second table of another shape would break it
		o.printDNS(runCtx, rendered, clients, readTimeout)
	}
	if notFound != nil {
		return notFound
	}
	// Members that could not be read and a wait that timed out are both
	// told; the exit code is 3 then, as for apply --wait: the wait could
	// only see the members that answered (1 when it saw none). A member
	// where an object could not be read (RetrievalFailed) counts as not
	// read: what it holds of that object is not known, and a CI gate must
	// not pass on it.
	var membersErr error
	unreachable := report.Failed()
	failed := slices.Compact(slices.Sorted(slices.Values(append(slices.Clone(unreachable), report.Unread()...))))
	switch {
	case len(unreachable) == len(clusters) && len(failed) > 0:
		membersErr = &cmdutil.AllFailedError{Err: fmt.Errorf("no member cluster could be read: %s", strings.Join(failed, ", "))}
	case len(failed) > 0:
		// a member that answered and refused some reads is no failed
		// member: said apart
		var says []string
		if len(unreachable) > 0 {
			says = append(says, fmt.Sprintf("%d member cluster(s) could not be read: %s", len(unreachable), strings.Join(unreachable, ", ")))
		}
		if partly := slices.DeleteFunc(slices.Clone(failed), func(c string) bool { return slices.Contains(unreachable, c) }); len(partly) > 0 {
			says = append(says, "some objects could not be read in "+strings.Join(partly, ", ")+" (RetrievalFailed)")
		}
		membersErr = &cmdutil.PartialError{Failed: failed, Says: strings.Join(says, "; ")}
	}
	if err := errors.Join(membersErr, cmdutil.WaitError(waitErr)); err != nil {
		return err
	}
	if o.ExitCode {
		return outOfSync(report)
	}
	return nil
}

// outOfSync is --exit-code's verdict: an error (exit 1) naming how many
// member objects apply would change: Drifted or NotApplied (it writes
// them) and WaitingForRemoval (it deletes or unmarks them); nil when none.
func outOfSync(r *status.Report) error {
	var parts []string
	n := 0
	for _, s := range []string{status.Drifted, status.NotApplied, status.WaitingForRemoval} {
		if c := r.Summary.Propagation[s]; c > 0 {
			n += c
			parts = append(parts, fmt.Sprintf("%d %s", c, s))
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("%d member object(s) out of sync (%s); \"fedctl apply\" would bring them in line", n, strings.Join(parts, ", "))
}

func (o *StatusOptions) print(r *status.Report) error {
	if len(r.Items) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "No federated objects in the input.")
		if o.Print.IsTable() {
			return nil
		}
	}
	if err := o.printReport(r); err != nil {
		return err
	}
	status.WriteSummary(o.IO.ErrOut, r, o.IO.ErrColorScheme())
	return nil
}

func (o *StatusOptions) printReport(r *status.Report) error {
	if done, err := o.Print.PrintData(o.IO.Out, r); done {
		return err
	}
	switch {
	case o.Print.Output == "name":
		for _, it := range r.Items {
			fmt.Fprintln(o.IO.Out, it.ResourceName())
		}
		return nil
	case o.Print.CustomColumns() != nil:
		docs, err := status.RowDocuments(r)
		if err != nil {
			return err
		}
		labels := func(i int) map[string]string { return (&unstructured.Unstructured{Object: docs[i]}).GetLabels() }
		return printers.CustomColumnsTable(o.Print.CustomColumns(), nil, docs, nil, labels).Write(o.IO.Out, o.Print.TableOptions(nil))
	}
	t, err := status.Table(r)
	if err != nil {
		return err
	}
	return t.Write(o.IO.Out, o.Print.TableOptions(status.ReadinessColors(o.IO.ColorScheme())))
}

// printDNS prints, after the objects, each DNS record's targets per member
// and why, as the members say now (fedctl dns --why has the names too).
// status only reads: records that cannot be computed are a warning, not a
// failure of the status.
func (o *StatusOptions) printDNS(ctx context.Context, r *cmdutil.Rendered, clients func(string) (members.Client, error), readTimeout time.Duration) {
	if err := ctx.Err(); err != nil {
		// --wait's --timeout has run out: reading the members again
		// would only report each as unreachable, after the deadline.
		if errors.Is(err, context.DeadlineExceeded) {
			fmt.Fprintln(o.IO.ErrOut, "Warning: DNS records: not read, --timeout was reached")
		}
		return
	}
	res, err := (&cmdutil.DNSFlags{}).ComputeDNS(ctx, o.IO, r, clients, nil, readTimeout) // each member's; ctx bounds them all
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "Warning: DNS records: %v\n", err)
		return
	}
	t := printers.NewTable("NAMESPACE", "RECORD", "MEMBER", "TARGETS", "WEIGHT", "WHY")
	for _, rec := range res.Records {
		for _, mt := range rec.Members {
			weight := "-"
			if mt.Weight != nil {
				weight = strconv.FormatInt(*mt.Weight, 10)
			}
			t.AddRow(rec.Namespace, strings.ToLower(rec.Kind)+"dnsrecord/"+rec.Name, mt.Member, strings.Join(mt.LoadBalancer.Targets(), ","), weight, mt.Why)
		}
	}
	fmt.Fprintln(o.IO.Out)
	_ = t.Write(o.IO.Out)
}
