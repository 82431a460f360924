// Package join implements "fedctl join".
package join

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// JoinOptions are the inputs of "fedctl join".
type JoinOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	Settings   func() (cmdutil.Settings, error)

	Name           string
	ClusterContext string
	Kubeconfig     string // recorded for the member; from --kubeconfig
	LabelArgs      []string
	Labels         map[string]string
	Provider       string
	Region         string
	Zones          []string
	Overwrite      bool
	DryRun         string // none | client | server
	Output         string
	Timeout        time.Duration

	// FromCAPI is set by --from-capi: the member's credentials come from
	// Cluster API, the Cluster CAPICluster (default NAME) of the management
	// cluster that ManagementContext reaches, in Namespace (default: the
	// management context's namespace, else "default").
	FromCAPI          bool
	CAPICluster       string
	ManagementContext string
	// ManagementKubeconfig is recorded for the member: --kubeconfig, which
	// holds ManagementContext.
	ManagementKubeconfig string
	Namespace            string
	// All joins every Cluster of Namespace (every namespace with
	// AllNamespaces) that Selector matches, each named after it.
	All           bool
	AllNamespaces bool
	// Selector is --selector, and with --all the -l values too, as
	// kubectl's -l.
	Selector string
	// CopyLabels labels each member with its Cluster's labels; --label
	// wins where both set a key.
	CopyLabels bool

	capiFlag capiFlag
}

// NewCmdJoin returns the join command. runF, when set, replaces Run (tests).
func NewCmdJoin(f *cmdutil.Factory, runF func(*JoinOptions) error) *cobra.Command {
	opts := &JoinOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, Settings: f.Settings}
	cmd := &cobra.Command{
		Use:   "join (NAME [--cluster-context CONTEXT] | NAME --from-capi CLUSTER --management-context MGMT | --all --from-capi --management-context MGMT) [--label KEY=VALUE]...",
		Short: "Add a member cluster to the federation",
		Long: `Add a member cluster to the federation file.

A member is a kubeconfig context: fedctl records the context's name, never its
credentials. Before writing, join checks that the context exists and that its
API server answers /readyz with the credentials of the context, within
--timeout. An existing member is replaced only with --overwrite.

With --from-capi, the member is a Cluster API workload cluster instead: the
Cluster CLUSTER (default: NAME) in namespace -n (default: the management
context's namespace, else "default") of the management cluster that
--management-context reaches (with --kubeconfig, recorded as the member's
managementKubeconfig). fedctl records only that reference. Every command that
reaches the member reads the kubeconfig from the Cluster's Secret
CLUSTER-kubeconfig (data key "value") through the management context, once
per run and in memory only, so rotated credentials are used from the next run
on. join checks that the Cluster exists and is not being deleted, and that
the kubeconfig's API server answers, as for a context. --copy-labels labels
the member with the Cluster's labels (--label wins on the same key).

With --all --from-capi, join adds every Cluster of the namespace (-A: of every
namespace) that --selector matches, each named after its Cluster; with --all,
-l is the selector, as kubectl's -l, not a label (--copy-labels labels the
members). Clusters whose name is a member already are skipped with a note, so
that running it again joins only new Clusters; --overwrite joins them again.
A Cluster that cannot be joined (no kubeconfig Secret yet, not answering,
being deleted) is reported and the others are joined: the exit code is then 3,
or 1 when none could be. No Cluster matching is an error.

Labels are what clusterSelector in a federated object's placement matches.
--provider, --region and --zone record where the member runs, as Karmada's
Cluster does; Karmada policies in the input select members by them
(clusterAffinity.fieldSelector).

--dry-run=client and --dry-run=server both check the cluster and print the
federation file join would write, without writing it; a bare --dry-run means
client, as in kubectl.

Exit codes: 0 joined, 1 error, 2 usage error, 3 some Clusters of --all could
not be joined.`,
		Example: `  # Join the cluster of context kind-eu-1 as eu-1, labelled with its region
  fedctl join eu-1 --cluster-context kind-eu-1 --label region=eu-west-1

  # Join a cluster whose context has the same name, from another kubeconfig
  fedctl join us-1 --kubeconfig ~/.kube/us.yaml

  # Show the federation file that join would write, without writing it
  fedctl join eu-2 --label region=eu-west-2 --dry-run=client

  # Record where a member runs, which Karmada policies' fieldSelector matches
  fedctl join eu-2 --provider aws --region eu-west-2 --zone eu-west-2a --zone eu-west-2b --dry-run=client

  # Join the Cluster API Cluster web-1 of namespace capi in the management cluster mgmt
  fedctl join web-1 --from-capi web-1 --management-context mgmt -n capi

  # Join every Cluster labelled env=prod in namespace capi, each with its Cluster's labels
  fedctl join --all --from-capi --management-context mgmt -n capi -l env=prod --copy-labels`,
		Args:              opts.args,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Complete(cmd, args); err != nil {
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
	fl := cmd.Flags()
	fl.StringVar(&opts.ClusterContext, "cluster-context", "", "Kubeconfig context of the cluster (default: NAME)")
	fl.StringArrayVarP(&opts.LabelArgs, "label", "l", nil, "Label of the member as KEY=VALUE (repeatable); with --all, the selector of the Clusters")
	fl.StringVar(&opts.Provider, "provider", "", "Provider the member runs on, for Karmada's fieldSelector")
	fl.StringVar(&opts.Region, "region", "", "Region the member runs in, for Karmada's fieldSelector")
	fl.StringArrayVar(&opts.Zones, "zone", nil, "Zone the member runs in, for Karmada's fieldSelector (repeatable)")
	fl.BoolVar(&opts.Overwrite, "overwrite", false, "Join again a member of the same name: how it is reached and what the flags give are replaced; its cordon, migrations and, unless flags give new ones, labels, provider, region and zones stay")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: check the cluster and print the federation file that would be written, without writing it")
	fl.StringVarP(&opts.Output, "output", "o", "", "Print the resulting federation file: yaml or json; or name")
	fl.DurationVar(&opts.Timeout, "timeout", 10*time.Second, "How long to wait for the cluster's API server to answer")
	opts.capiFlag.flags = fl
	fl.Var(&opts.capiFlag, "from-capi", "Take the member's credentials from Cluster API: the Cluster CLUSTER (default: NAME) of the management cluster, whose kubeconfig Secret is read at run time; with --all, every Cluster")
	fl.Lookup("from-capi").NoOptDefVal = bareFromCAPI
	fl.StringVar(&opts.ManagementContext, "management-context", "", "With --from-capi: kubeconfig context of the Cluster API management cluster")
	fl.StringVarP(&opts.Namespace, "namespace", "n", "", "With --from-capi: namespace of the Cluster (default: the management context's namespace)")
	fl.BoolVar(&opts.All, "all", false, "With --from-capi: join every Cluster that --selector (-l) matches, each named after it")
	fl.BoolVarP(&opts.AllNamespaces, "all-namespaces", "A", false, "With --all: Clusters of every namespace")
	fl.StringVar(&opts.Selector, "selector", "", "With --all: label selector of the Clusters to join, as kubectl's -l")
	fl.BoolVar(&opts.CopyLabels, "copy-labels", false, "With --from-capi: label each member with its Cluster's labels")
	cmd.MarkFlagsMutuallyExclusive("cluster-context", "from-capi")
	cmd.MarkFlagsMutuallyExclusive("namespace", "all-namespaces")
	_ = cmd.RegisterFlagCompletionFunc("cluster-context", cmdutil.Contexts(f))
	_ = cmd.RegisterFlagCompletionFunc("management-context", cmdutil.Contexts(f))
	// -n names a namespace of the management cluster, which completion
	// cannot list offline; this keeps the members' namespaces out of it.
	_ = cmd.RegisterFlagCompletionFunc("namespace", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("from-capi", cobra.NoFileCompletions)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// bareFromCAPI is --from-capi's value when it is given without "=": no
// Cluster name can be upper case, so it is never one.
const bareFromCAPI = "NAME"

// capiFlag is --from-capi. Its Cluster is given as --from-capi=CLUSTER, or
// as the argument that follows a bare --from-capi (kubectl's "--flag value"
// habit); else it is NAME's, or with --all every Cluster's. pflag cannot
// take an optional value after a space, so a bare --from-capi records how
// many arguments came before it: the argument at that position, if any, is
// the Cluster, whichever side of NAME the flag was written.
type capiFlag struct {
	flags      *pflag.FlagSet
	set        bool
	cluster    string // from --from-capi=CLUSTER
	argsBefore int    // of a bare --from-capi
}

func (f *capiFlag) String() string { return f.cluster }
func (f *capiFlag) Type() string   { return "CLUSTER" }

func (f *capiFlag) Set(v string) error {
	f.set = true
	if v == bareFromCAPI {
		f.cluster, f.argsBefore = "", len(f.flags.Args())
		return nil
	}
	f.cluster, f.argsBefore = v, -1
	return nil
}

// positional says whether the Cluster of a bare --from-capi is one of the
// two args, and which: the one right after the flag.
func (f *capiFlag) positional(args []string) (int, bool) {
	if !f.set || f.argsBefore < 0 || len(args) != 2 || f.argsBefore >= len(args) {
		return 0, false
	}
	return f.argsBefore, true
}

// args checks the arguments: NAME, or NAME and the CLUSTER of a bare
// --from-capi, or none with --all.
func (o *JoinOptions) args(cmd *cobra.Command, args []string) error {
	switch {
	case o.All && len(args) > 0:
		return cmdutil.FlagErrorf("--all joins every Cluster under its own name; it takes no NAME, got %q", strings.Join(args, " "))
	case o.All:
		return nil
	}
	if _, ok := o.capiFlag.positional(args); ok {
		return nil
	}
	return cmdutil.ExactArgs(1, "NAME")(cmd, args)
}

// Complete takes NAME, the Cluster of --from-capi, the kubeconfig given
// with --kubeconfig, and with --all the -l values as the selector.
func (o *JoinOptions) Complete(cmd *cobra.Command, args []string) error {
	o.FromCAPI = o.capiFlag.set
	o.CAPICluster = o.capiFlag.cluster
	switch i, ok := o.capiFlag.positional(args); {
	case ok:
		o.CAPICluster, o.Name = args[i], args[1-i]
	case len(args) > 0:
		o.Name = args[0]
	}
	if o.FromCAPI && !o.All && o.CAPICluster == "" {
		o.CAPICluster = o.Name
	}
	if o.All && len(o.LabelArgs) > 0 {
		o.Selector = strings.Join(append([]string{o.Selector}, o.LabelArgs...), ",")
		o.Selector = strings.TrimPrefix(o.Selector, ",")
		o.LabelArgs = nil
	}
	var err error
	if o.DryRun, err = cmdutil.ParseDryRun(o.IO.ErrOut, o.DryRun); err != nil {
		return err
	}
	if o.ClusterContext == o.Name {
		o.ClusterContext = "" // the default; keep the file short
	}
	if cmd.Flags().Changed("kubeconfig") {
		s, err := o.Settings()
		if err != nil {
			return err
		}
		path := recordedPath(s.Kubeconfig, members.Dir(s.ConfigPath))
		if o.FromCAPI {
			o.ManagementKubeconfig = path // it holds the management context
		} else {
			o.Kubeconfig = path
		}
	}
	if cmdutil.IsDryRun(o.DryRun) && o.Output == "" {
		o.Output = "yaml"
	}
	return nil
}

// recordedPath is how a kubeconfig path is written into the federation file:
// relative to the file when it lives below it (a kubeconfig kept beside the
// file in a repository), absolute otherwise, because a path relative to
// today's working directory means nothing tomorrow.
func recordedPath(path, baseDir string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if base, err := filepath.Abs(baseDir); err == nil {
		if rel, err := filepath.Rel(base, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return rel
		}
	}
	return abs
}

// Validate checks the name, labels, zones, output and timeout, and that
// the flags of Cluster API go together.
func (o *JoinOptions) Validate() error {
	if err := o.validateCAPI(); err != nil {
		return err
	}
	if msgs := members.ValidateName(o.Name); len(msgs) > 0 && !o.All {
		return fmt.Errorf("invalid cluster name %q: %s", o.Name, strings.Join(msgs, "; "))
	}
	labels, err := ParseLabels(o.LabelArgs)
	if err != nil {
		return err
	}
	o.Labels = labels
	seen := map[string]bool{}
	for _, z := range o.Zones {
		if z == "" || seen[z] {
			return fmt.Errorf("--zone %q: zones must be non-empty and given once", z)
		}
		seen[z] = true
	}
	if err := printers.CheckFormat(o.Output, "yaml", "json", "name"); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

// validateCAPI checks the flags of --from-capi: which need it, which need
// --all, and the Cluster's name and namespace.
func (o *JoinOptions) validateCAPI() error {
	type flag struct {
		name string
		set  bool
	}
	if !o.FromCAPI {
		for _, f := range []flag{{"--management-context", o.ManagementContext != ""}, {"-n", o.Namespace != ""}, {"--all", o.All}, {"--copy-labels", o.CopyLabels}} {
			if f.set {
				return fmt.Errorf("%s goes with --from-capi, which joins a Cluster API cluster", f.name)
			}
		}
	}
	if !o.All {
		for _, f := range []flag{{"-A", o.AllNamespaces}, {"--selector", o.Selector != ""}} {
			if f.set {
				return fmt.Errorf("%s goes with --all, which joins every Cluster that matches", f.name)
			}
		}
	}
	if !o.FromCAPI {
		return nil
	}
	if o.ManagementContext == "" {
		return errors.New("--from-capi needs --management-context MGMT, the kubeconfig context of the Cluster API management cluster")
	}
	if o.Namespace != "" {
		if msgs := validation.IsDNS1123Label(o.Namespace); len(msgs) > 0 {
			return fmt.Errorf("-n %q: %s", o.Namespace, strings.Join(msgs, "; "))
		}
	}
	if o.All {
		if _, err := labels.Parse(o.Selector); err != nil {
			return fmt.Errorf("--selector %q: %v", o.Selector, err)
		}
		return nil
	}
	if msgs := validation.IsDNS1123Subdomain(o.CAPICluster); len(msgs) > 0 {
		return fmt.Errorf("--from-capi %q is not a Cluster name: %s", o.CAPICluster, strings.Join(msgs, "; "))
	}
	return nil
}

// ParseLabels parses KEY=VALUE arguments into a map, rejecting malformed,
// invalid and repeated keys.
func ParseLabels(args []string) (map[string]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	labels := map[string]string{}
	for _, arg := range args {
		k, val, ok := strings.Cut(arg, "=")
		if !ok {
			return nil, fmt.Errorf("--label must be KEY=VALUE, got %q", arg)
		}
		if msgs := members.ValidateLabel(k, val); len(msgs) > 0 {
			return nil, fmt.Errorf("--label %s: %s", arg, strings.Join(msgs, "; "))
		}
		if _, dup := labels[k]; dup {
			return nil, fmt.Errorf("--label %s: label %q given twice", arg, k)
		}
		labels[k] = val
	}
	return labels, nil
}

// Run checks the cluster and records the member.
func (o *JoinOptions) Run(ctx context.Context) error {
	if o.All {
		return o.runAll(ctx)
	}
	file, err := o.Federation()
	if err != nil {
		return err
	}
	if old, ok := file.Federation.Member(o.Name); ok && !o.Overwrite {
		return &members.ExistsError{Member: old}
	}
	m := members.Member{Name: o.Name, Context: o.ClusterContext, Kubeconfig: o.Kubeconfig, Labels: o.Labels,
		Provider: o.Provider, Region: o.Region, Zones: o.Zones}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if o.FromCAPI {
		if err := o.fromCAPI(ctx, file.Federation, access, &m); err != nil {
			return fmt.Errorf("cannot join %s: %w", o.Name, err)
		}
	}
	serverVersion, err := members.Verify(ctx, access, m)
	if err != nil {
		return fmt.Errorf("cannot join %s: %w", o.Name, err)
	}
	if same, ok := access.SameCluster(file.Federation, m); ok {
		// as a Cluster API cluster joined twice is refused
		return fmt.Errorf("cannot join %s: %s reaches the API server of member %s (%s); a second member of the same cluster would get every object twice (fedctl unjoin %s first to rename it)",
			o.Name, m.Origin(), same.Name, same.Origin(), same.Name)
	}
	fed := file.Federation.Clone()
	if m, err = fed.Join(m, o.Overwrite); err != nil {
		return err
	}
	cs := o.IO.ErrColorScheme()
	if cmdutil.IsDryRun(o.DryRun) {
		if err := printFederation(o.IO, o.Output, fed, m); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s would be joined (%s, Kubernetes %s); dry run, %s not written\n",
			cs.WarningIcon(), o.Name, reachedThrough(m), serverVersion, file.Path)
		return nil
	}
	if err := file.Save(fed); err != nil {
		return err
	}
	if err := printFederation(o.IO, o.Output, fed, m); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s joined (%s, Kubernetes %s)\n", cs.SuccessIcon(), o.Name, reachedThrough(m), serverVersion)
	return nil
}

// reachedThrough says what reaches m in join's lines: "context eu-1", or
// its Cluster API cluster.
func reachedThrough(m members.Member) string {
	if m.CAPI != nil {
		return m.CAPI.String()
	}
	return "context " + m.ContextName()
}

func printFederation(ios *iostreams.IOStreams, format string, fed *members.Federation, m members.Member) error {
	switch format {
	case "yaml":
		data, err := members.Encode(fed)
		if err != nil {
			return err
		}
		_, err = ios.Out.Write(data)
		return err
	case "json":
		return printers.JSON(ios.Out, fed)
	case "name":
		_, err := fmt.Fprintf(ios.Out, "cluster/%s\n", m.Name)
		return err
	}
	return nil
}
