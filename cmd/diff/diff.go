// Package diff implements "fedctl diff".
package diff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// Exit codes of diff, as kubectl diff's: 1 means differences were found,
// so errors are 2 and up.
const (
	exitDifferent = 1
	exitError     = 2
)

// DiffOptions are the inputs of "fedctl diff".
type DiffOptions struct {
	// Plan is --offline-plan and --no-failover.
	Plan       cmdutil.PlanFlags
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	// NewClient returns the Client of one member; tests replace it.
	NewClient func(members.Access, members.Member) (members.Client, error)
	// Getenv reads FEDCTL_EXTERNAL_DIFF and KUBECTL_EXTERNAL_DIFF; tests
	// replace it.
	Getenv func(string) string

	Filenames []string
	// AllowEmpty accepts a run with nothing to do (--allow-empty).
	AllowEmpty bool
	Recursive  bool
	Kustomize  string
	Selector   string
	Clusters   []string
	Namespace  string
	// NamespaceGiven says -n was given: without it, the namespace of the
	// --applyset parent is looked up in the members.
	NamespaceGiven bool
	FieldManager   string
	ForceConflicts bool
	Adopt          bool
	Concurrency    int
	// Timeout bounds each request to a member (--timeout); Deadline, when
	// set, the whole run (--deadline), as apply's and delete's.
	Timeout  time.Duration
	Deadline time.Duration
	// QPS and Burst bound the requests to a member without API Priority
	// and Fairness (--qps, --burst), as apply's and delete's.
	QPS      float32
	Burst    int
	Prune    bool
	ApplySet string
	Version  string
	// DNS shapes the DNSEndpoints of the input's DNS records, as apply's.
	DNS cmdutil.DNSFlags
	// clientSet are the run's clients of the members (runClients).
	clientSet *cmdutil.MemberClients
}

// NewCmdDiff returns the diff command. runF, when set, replaces Run.
func NewCmdDiff(f *cmdutil.Factory, runF func(*DiffOptions) error) *cobra.Command {
	opts := &DiffOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient, Getenv: os.Getenv, Version: f.Build.Version}
	cmd := &cobra.Command{
		Use:   "diff -f FILENAME [--cluster NAME]... [--prune --applyset NAME]",
		Short: "Show what apply would change in member clusters",
		Long: `Show, per member cluster and object, the difference between the live object
and what "fedctl apply" would make of it. Every member object is sent to its
member as a server-side dry run, changed or not, so changes made by other
writers show too; nothing in any member changes.

The output is that of kubectl diff: the live objects and the dry runs'
results are written as YAML to two temporary directories, LIVE and MERGED,
one file per object named CLUSTER_GROUP.VERSION.KIND.NAMESPACE.NAME, and
compared with $FEDCTL_EXTERNAL_DIFF, else $KUBECTL_EXTERNAL_DIFF, else
"diff -u -N". metadata.managedFields, resourceVersion, generation, uid,
creationTimestamp and fedctl's bookkeeping annotations are left out; the
values of a Secret's data are masked ("***", or "*** (before)" and
"*** (after)" when they change). An object that apply would delete, because
it is no longer placed in a member or, with --prune --applyset, because it
left the input, shows as deleted; a new one as added. Without -n, the
namespace of the --applyset parent is looked up in the members, as apply
does. The DNSEndpoints that apply would write for the input's DNS records,
or delete with --prune, show too, named after the DNS cluster
(DNSCLUSTER_externaldns.k8s.io.v1alpha1.DNSEndpoint.NAMESPACE.NAME).

Exit status, as kubectl diff: 0 when nothing differs, 1 when something
differs, 2 or more on an error, a member that cannot be reached included
(the other members' differences are printed first).

--timeout bounds each request (alias --request-timeout, kubectl's name);
--qps and --burst limit the requests to a member without API Priority and
Fairness; --deadline, when given, bounds the whole run, as for apply and
delete: a member not done by then is reported in one line,
"deadline reached (--deadline 1m)", after the differences found elsewhere
(and those found in it before the deadline), and the exit status is 2.`,
		Example: `  # What would apply change?
  fedctl diff -f manifests/

  # In one member, with pruning, through another diff program
  KUBECTL_EXTERNAL_DIFF="colordiff -N -u" fedctl diff -f manifests/ --cluster eu-1 --prune --applyset shop`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.NamespaceGiven = cmd.Flags().Changed("namespace")
			if err := opts.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			err := opts.Run(cmd.Context())
			var exitErr *cmdutil.ExitError
			if err != nil && !errors.As(err, &exitErr) {
				if errors.Is(err, context.Canceled) {
					err = errors.New("interrupted") // as cmd.Main says it for the other commands
				}
				return &cmdutil.ExitError{Code: exitError, Err: err}
			}
			return err
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmdutil.AddAllowEmptyFlag(cmd, &opts.AllowEmpty)
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only compare in this member cluster (repeatable); DNS records are then not compared")
	fl := cmd.Flags()
	fl.StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none, and of the ApplySet parent")
	fl.StringVar(&opts.FieldManager, "field-manager", propagate.FieldManager, "Field manager of the server-side dry runs")
	fl.BoolVar(&opts.ForceConflicts, "force-conflicts", false, "Take over fields that other field managers own, as apply --force-conflicts would")
	fl.BoolVar(&opts.Adopt, "adopt", false, "Take over existing objects that fedctl did not create, as apply --adopt would")
	fl.IntVar(&opts.Concurrency, "concurrency", propagate.DefaultConcurrency, "Member clusters compared at once")
	cmdutil.AddPlanFlags(cmd, &opts.Plan)
	cmdutil.AddMemberTimeFlags(cmd, opts.timeFlags())
	fl.BoolVar(&opts.Prune, "prune", false, "Also show the objects of the --applyset set that apply --prune would delete")
	fl.StringVar(&opts.ApplySet, "applyset", "", "ApplySet parent for --prune: NAME or secrets/NAME (a Secret), or configmaps/NAME, in --namespace (default: the namespace where the members hold it)")
	cmdutil.AddDNSFlags(cmd, &opts.DNS)
	cmdutil.AddDNSForgetFlag(cmd, &opts.DNS)
	return cmd
}

// Validate checks the flags.
func (o *DiffOptions) Validate() error {
	var errs []error
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		errs = append(errs, err)
	}
	if err := cmdutil.CheckPruneSelector(o.Prune, o.Selector); err != nil {
		errs = append(errs, err)
	}
	if o.FieldManager == "" {
		errs = append(errs, errors.New("--field-manager must not be empty"))
	}
	if o.Concurrency < 1 {
		errs = append(errs, fmt.Errorf("--concurrency must be at least 1, got %d", o.Concurrency))
	}
	errs = append(errs, o.timeFlags().Validate()...)
	if _, err := o.applySet(); err != nil {
		errs = append(errs, err)
	}
	if err := o.DNS.Validate(o.Prune, o.Clusters); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// runClients are the run's clients of the members, one per member, shared
// by the live read, the comparison and the DNS step, with the time flags.
func (o *DiffOptions) runClients() *cmdutil.MemberClients {
	if o.clientSet == nil {
		o.clientSet = cmdutil.NewMemberClients(o.Access, o.NewClient, o.timeFlags().Tuning())
	}
	return o.clientSet
}

func (o *DiffOptions) timeFlags() cmdutil.MemberTimeFlags {
	return cmdutil.MemberTimeFlags{Timeout: &o.Timeout, Deadline: &o.Deadline, QPS: &o.QPS, Burst: &o.Burst}
}

// applySet is the ApplySet of --prune --applyset; nil without --prune.
func (o *DiffOptions) applySet() (*propagate.ApplySet, error) {
	return cmdutil.ApplySetFromFlags(o.Prune, o.ApplySet, o.Namespace, o.Version)
}

// Run renders, compares in every member, then shows the differences. Any
// error is returned after the differences found elsewhere are printed.
func (o *DiffOptions) Run(ctx context.Context) error {
	var err error
	if o.Namespace, o.NamespaceGiven, err = cmdutil.NamespaceScope(o.Federation, o.Namespace, o.NamespaceGiven); err != nil {
		return err
	}
	start := time.Now() // --deadline counts from here, as apply's
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context: ctx, Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
		AllowEmpty: o.AllowEmpty,
		Live:       cmdutil.LiveReader(o.runClients(), o.Timeout, o.Plan),
	})
	if err != nil {
		return err // nothing is sent for an input with errors
	}
	fed, res, clusters := in.Federation, in.Result, in.Clusters
	clients, err := o.runClients().ForRendered(in)
	if err != nil {
		return err
	}
	set, _ := o.applySet() // checked by Validate
	if set != nil && !o.NamespaceGiven {
		if err := cmdutil.FindApplySetNamespace(ctx, o.IO.ErrOut, set, clusters, clients, o.Timeout); err != nil {
			return err
		}
	}
	// before Compare, which compares the parents with what apply would write
	var dnsProblems dnsProblems
	dnsWhere := o.dnsClusters(ctx, in, set, clients, &dnsProblems)
	report := propagate.Compare(ctx, propagate.Input{
		Result:   res,
		Clusters: clusters,
		Clients:  clients,
		Options: propagate.Options{
			Cordoned:     fed.CordonedNames(),
			FieldManager: o.FieldManager,
			Force:        o.ForceConflicts,
			Adopt:        o.Adopt,
			Concurrency:  o.Concurrency,
			Deadline:     o.Deadline,
			Start:        start,
			ApplySet:     set,
		},
	})

	trees := report
	dnsResults := o.compareDNS(ctx, in, dnsWhere, set, clients, &dnsProblems)
	dnsErr := dnsProblems.err()
	if len(dnsResults) > 0 {
		trees = &propagate.Report{Clusters: append(slices.Clone(report.Clusters), dnsResults...)}
	}
	differ, diffErr := o.showDiff(trees)
	failures := failuresOf(report, o.deadlineError())
	if dnsErr != nil && ctx.Err() == nil {
		failures = append(failures, dnsErr.Error())
	}
	cs := o.IO.ErrColorScheme()
	for _, f := range failures {
		fmt.Fprintf(o.IO.ErrOut, "%s %s\n", cs.FailureIcon(), f)
	}
	// Objects the dry run could not check (those of a CRD the same input
	// creates) are not in the diff: say so rather than understate it.
	for _, c := range report.Clusters {
		for _, obj := range c.Objects {
			if obj.Action == propagate.Skipped && obj.Reason != propagate.ReasonManagedLabelFalse {
				fmt.Fprintf(o.IO.ErrOut, "%s cluster %s: %s: not compared: %s\n", cs.WarningIcon(), c.Cluster, obj.Ref(), obj.Error)
			}
		}
	}
	switch {
	case diffErr != nil:
		return diffErr
	case ctx.Err() != nil:
		return &cmdutil.ExitError{Code: exitError, Err: errors.New("interrupted")}
	case len(failures) > 0:
		return &cmdutil.ExitError{Code: exitError, Err: cannotCompare(failures, report.Failed(), dnsErr != nil, dnsProblems.clusters)}
	case differ:
		return &cmdutil.ExitError{Code: exitDifferent}
	}
	return nil
}

// deadlineError is what ends a member's context in Compare: --deadline,
// else the member's budget (see propagate.Options).
func (o *DiffOptions) deadlineError() *members.DeadlineError {
	if o.Deadline > 0 {
		return &members.DeadlineError{Flag: "--deadline", D: o.Deadline}
	}
	return &members.DeadlineError{D: propagate.DefaultMemberBudget}
}

// failuresOf lists, one line each, the members that could not be compared
// and the objects whose dry run failed. The objects of a member that the
// deadline stopped, those not sent and those cut off in flight, are one
// line for the member, as apply's summary has one: they failed for the
// same reason, and a line each would bury the other failures.
func failuresOf(report *propagate.Report, deadline *members.DeadlineError) []string {
	var out []string
	for _, c := range report.Clusters {
		if c.Error != "" {
			out = append(out, fmt.Sprintf("cluster %s: %s", c.Cluster, c.Error))
			continue
		}
		stopped := 0
		for _, obj := range c.Objects {
			switch {
			case obj.Action != propagate.Failed:
			case obj.Reason == propagate.ReasonDeadlineReached || strings.HasSuffix(obj.Error, deadline.Error()):
				stopped++
			default:
				out = append(out, fmt.Sprintf("cluster %s: %s: %s", c.Cluster, obj.Ref(), obj.Error))
			}
		}
		if stopped > 0 {
			out = append(out, fmt.Sprintf("cluster %s: %s: %d %s not compared", c.Cluster, deadline, stopped, plural(stopped, "object", "objects")))
		}
	}
	return out
}

// cannotCompare is diff's error when something could not be compared:
// the members that failed, and the DNS clusters that failed when DNS did
// (none when no DNS cluster could be decided).
func cannotCompare(failures, failed []string, dnsFailed bool, dnsClusters []string) error {
	where := []string{}
	if len(failed) > 0 {
		where = append(where, "member cluster(s) "+strings.Join(failed, ", "))
	}
	switch {
	case dnsFailed && len(dnsClusters) > 0:
		where = append(where, "DNS cluster(s) "+strings.Join(slices.Sorted(slices.Values(dnsClusters)), ", "))
	case dnsFailed:
		where = append(where, "the DNS records")
	}
	return fmt.Errorf("cannot compare everything: %d problem(s) in %s", len(failures), strings.Join(where, " and "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// showDiff writes the LIVE and MERGED trees and runs the diff program on
// them, its output going to stdout. It says whether anything differs,
// trusting the program's exit status as kubectl does: 0 same, 1 different,
// anything else an error.
func (o *DiffOptions) showDiff(report *propagate.Report) (bool, error) {
	tmp, err := os.MkdirTemp("", "fedctl-diff-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	live, merged := tmp+string(os.PathSeparator)+"LIVE", tmp+string(os.PathSeparator)+"MERGED"
	for _, d := range []string{live, merged} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return false, err
		}
	}
	if _, err := WriteDiffTrees(report, live, merged); err != nil {
		return false, err
	}
	name, args := o.diffProgram()
	c := exec.Command(name, append(args, live, merged)...)
	c.Stdout, c.Stderr = o.IO.Out, o.IO.ErrOut
	err = c.Run()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return false, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() == 1:
		return true, nil
	case errors.As(err, &exitErr) && exitErr.ExitCode() > 1:
		return false, &cmdutil.ExitError{Code: exitErr.ExitCode(), Err: fmt.Errorf("%s failed with exit status %d", name, exitErr.ExitCode())}
	}
	return false, fmt.Errorf("run the diff program %q: %w; set FEDCTL_EXTERNAL_DIFF to one that exists", name, err)
}

// diffProgram is the diff command and its arguments: FEDCTL_EXTERNAL_DIFF,
// else KUBECTL_EXTERNAL_DIFF, split on white space as kubectl splits it,
// else "diff -u -N".
func (o *DiffOptions) diffProgram() (string, []string) {
	for _, env := range []string{"FEDCTL_EXTERNAL_DIFF", "KUBECTL_EXTERNAL_DIFF"} {
		if f := strings.Fields(o.Getenv(env)); len(f) > 0 {
			return f[0], f[1:]
		}
	}
	return "diff", []string{"-u", "-N"}
}
