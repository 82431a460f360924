// Package join implements "fedctl join".
package join

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

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
}

// NewCmdJoin returns the join command. runF, when set, replaces Run (tests).
func NewCmdJoin(f *cmdutil.Factory, runF func(*JoinOptions) error) *cobra.Command {
	opts := &JoinOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, Settings: f.Settings}
	cmd := &cobra.Command{
		Use:   "join NAME [--cluster-context CONTEXT] [--label KEY=VALUE]...",
		Short: "Add a member cluster to the federation",
		Long: `Add a member cluster to the federation file.

A member is a kubeconfig context: fedctl records the context's name, never its
credentials. Before writing, join checks that the context exists and that its
API server answers /readyz with the credentials of the context, within
--timeout. An existing member is replaced only with --overwrite.

Labels are what clusterSelector in a federated object's placement matches.
--provider, --region and --zone record where the member runs, as Karmada's
Cluster does; Karmada policies in the input select members by them
(clusterAffinity.fieldSelector).

--dry-run=client and --dry-run=server both check the cluster and print the
federation file join would write, without writing it; a bare --dry-run means
client, as in kubectl.`,
		Example: `  # Join the cluster of context kind-eu-1 as eu-1, labelled with its region
  fedctl join eu-1 --cluster-context kind-eu-1 --label region=eu-west-1

  # Join a cluster whose context has the same name, from another kubeconfig
  fedctl join us-1 --kubeconfig ~/.kube/us.yaml

  # Show the federation file that join would write, without writing it
  fedctl join eu-2 --label region=eu-west-2 --dry-run=client

  # Record where a member runs, which Karmada policies' fieldSelector matches
  fedctl join eu-2 --provider aws --region eu-west-2 --zone eu-west-2a --zone eu-west-2b --dry-run=client`,
		Args:              cmdutil.ExactArgs(1, "NAME"),
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
	cmd.Flags().StringVar(&opts.ClusterContext, "cluster-context", "", "Kubeconfig context of the cluster (default: NAME)")
	cmd.Flags().StringArrayVarP(&opts.LabelArgs, "label", "l", nil, "Label of the member as KEY=VALUE (repeatable)")
	cmd.Flags().StringVar(&opts.Provider, "provider", "", "Provider the member runs on, for Karmada's fieldSelector")
	cmd.Flags().StringVar(&opts.Region, "region", "", "Region the member runs in, for Karmada's fieldSelector")
	cmd.Flags().StringArrayVar(&opts.Zones, "zone", nil, "Zone the member runs in, for Karmada's fieldSelector (repeatable)")
	cmd.Flags().BoolVar(&opts.Overwrite, "overwrite", false, "Replace a member of the same name")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: check the cluster and print the federation file that would be written, without writing it")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Print the resulting federation file: yaml or json; or name")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 10*time.Second, "How long to wait for the cluster's API server to answer")
	_ = cmd.RegisterFlagCompletionFunc("cluster-context", cmdutil.Contexts(f))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json", "name"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete takes NAME and the kubeconfig given with --kubeconfig.
func (o *JoinOptions) Complete(cmd *cobra.Command, args []string) error {
	o.Name = args[0]
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
		o.Kubeconfig = recordedPath(s.Kubeconfig, filepath.Dir(s.ConfigPath))
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

// Validate checks the name, labels, zones, output and timeout.
func (o *JoinOptions) Validate() error {
	if msgs := members.ValidateName(o.Name); len(msgs) > 0 {
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
	serverVersion, err := members.Verify(ctx, access, m)
	if err != nil {
		return fmt.Errorf("cannot join %s: %w", o.Name, err)
	}
	fed := file.Federation.Clone()
	if err := fed.Put(m, o.Overwrite); err != nil {
		return err
	}
	cs := o.IO.ErrColorScheme()
	if cmdutil.IsDryRun(o.DryRun) {
		if err := printFederation(o.IO, o.Output, fed, m); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s would be joined (context %s, Kubernetes %s); dry run, %s not written\n",
			cs.WarningIcon(), o.Name, m.ContextName(), serverVersion, file.Path)
		return nil
	}
	if err := file.Save(fed); err != nil {
		return err
	}
	if err := printFederation(o.IO, o.Output, fed, m); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s joined (context %s, Kubernetes %s)\n", cs.SuccessIcon(), o.Name, m.ContextName(), serverVersion)
	return nil
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
