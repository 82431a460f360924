// Package label implements "fedctl label cluster".
package label

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// LabelOptions are the inputs of "fedctl label cluster".
type LabelOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)

	Name      string
	Set       map[string]string // KEY=VALUE arguments
	Remove    []string          // KEY- arguments
	Overwrite bool
	List      bool
	DryRun    string // none | client | server
	Output    string
}

// NewCmdLabel returns "fedctl label", whose only resource is cluster.
func NewCmdLabel(f *cmdutil.Factory, runF func(*LabelOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "label cluster NAME KEY=VALUE ... KEY- ...",
		Short: "Update the labels of a member cluster",
		Args:  cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmdutil.FlagErrorf("%q needs a resource type: cluster", cmd.CommandPath())
		},
	}
	cmd.AddCommand(newCmdLabelCluster(f, runF))
	return cmd
}

func newCmdLabelCluster(f *cmdutil.Factory, runF func(*LabelOptions) error) *cobra.Command {
	opts := &LabelOptions{IO: f.IOStreams, Federation: f.Federation}
	cmd := &cobra.Command{
		Use:     "cluster NAME KEY=VALUE ... KEY- ...",
		Aliases: []string{"clusters"},
		Short:   "Update the labels of a member cluster",
		Long: `Update the labels of a member cluster in the federation file, the way
kubectl label updates an object's labels: KEY=VALUE sets a label, KEY- removes
it, and changing the value of an existing label needs --overwrite.

Placement's clusterSelector matches these labels. Only the federation file
changes; nothing is sent to the cluster.

--dry-run=client and --dry-run=server both leave the federation file alone
(server has nothing more to ask of a server here); a bare --dry-run means
client, as in kubectl.`,
		Example: `  # Label eu-1 with its region and tier
  fedctl label cluster eu-1 region=eu-west-1 tier=prod

  # Change the tier and remove the region label
  fedctl label cluster eu-1 tier=staging region- --overwrite

  # Show the labels of eu-1
  fedctl label cluster eu-1 --list`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("%q needs NAME and at least one KEY=VALUE or KEY-", cmd.CommandPath())
			}
			return nil
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return cmdutil.ClusterNames(f)(cmd, args, toComplete)
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Complete(args); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if err := opts.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run()
		},
	}
	cmd.Flags().BoolVar(&opts.Overwrite, "overwrite", false, "Allow changing the value of an existing label")
	cmd.Flags().BoolVar(&opts.List, "list", false, "Print the member's labels as KEY=VALUE lines, with the changes given applied, and write nothing (as kubectl label --list)")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: show the result without writing the federation file")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Print the updated member: yaml, json or name")
	return cmd
}

// Complete splits the arguments into the name, labels to set and labels to
// remove.
func (o *LabelOptions) Complete(args []string) error {
	o.Name = args[0]
	var err error
	if o.DryRun, err = cmdutil.ParseDryRun(o.IO.ErrOut, o.DryRun); err != nil {
		return err
	}
	o.Set = map[string]string{}
	for _, arg := range args[1:] {
		switch {
		case strings.HasSuffix(arg, "-") && !strings.Contains(arg, "="):
			o.Remove = append(o.Remove, strings.TrimSuffix(arg, "-"))
		case strings.Contains(arg, "="):
			k, v, _ := strings.Cut(arg, "=")
			if _, dup := o.Set[k]; dup {
				return fmt.Errorf("label %q given twice", k)
			}
			o.Set[k] = v
		default:
			return fmt.Errorf("invalid label change %q: use KEY=VALUE to set or KEY- to remove", arg)
		}
	}
	return nil
}

// Validate checks the label keys and values.
func (o *LabelOptions) Validate() error {
	if !o.List && len(o.Set) == 0 && len(o.Remove) == 0 {
		return fmt.Errorf("no label changes given: use KEY=VALUE to set or KEY- to remove, or --list")
	}
	for _, k := range slices.Sorted(maps.Keys(o.Set)) {
		if msgs := members.ValidateLabel(k, o.Set[k]); len(msgs) > 0 {
			return fmt.Errorf("%s", strings.Join(msgs, "; "))
		}
		if slices.Contains(o.Remove, k) {
			return fmt.Errorf("label %q is both set and removed", k)
		}
	}
	return printers.CheckFormat(o.Output, "yaml", "json", "name")
}

// Run applies the changes to the federation file.
func (o *LabelOptions) Run() error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	fed := file.Federation.Clone()
	m, ok := fed.Member(o.Name)
	if !ok {
		return &members.NotMemberError{Name: o.Name, Members: fed.Names()}
	}
	labels, changed, err := Change(m.Labels, o.Set, o.Remove, o.Overwrite)
	if err != nil {
		return fmt.Errorf("cluster %s: %w", o.Name, err)
	}
	if o.List {
		// As kubectl label --list: the labels the changes would give,
		// worked out locally; nothing is written.
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			fmt.Fprintf(o.IO.Out, "%s=%s\n", k, labels[k])
		}
		return nil
	}
	cs := o.IO.ErrColorScheme()
	for _, k := range o.Remove {
		if _, had := m.Labels[k]; !had {
			fmt.Fprintf(o.IO.ErrOut, "%s label %q not found\n", cs.WarningIcon(), k)
		}
	}
	m.Labels = labels
	if err := fed.Put(m, true); err != nil {
		return err
	}
	verb := "labeled"
	if !changed {
		verb = "not labeled (no change)"
	}
	switch {
	case cmdutil.IsDryRun(o.DryRun):
		fmt.Fprintf(o.IO.ErrOut, "cluster/%s %s (dry run)\n", o.Name, verb)
	case changed:
		if err := file.Save(fed); err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s %s\n", cs.SuccessIcon(), o.Name, verb)
	default:
		fmt.Fprintf(o.IO.ErrOut, "cluster/%s %s\n", o.Name, verb)
	}
	switch o.Output {
	case "yaml":
		return printers.YAML(o.IO.Out, m)
	case "json":
		return printers.JSON(o.IO.Out, m)
	case "name":
		_, err := fmt.Fprintf(o.IO.Out, "cluster/%s\n", o.Name)
		return err
	}
	return nil
}

// Change returns labels with set applied and remove removed, and whether
// anything changed. It refuses to change an existing value unless overwrite
// is set, as kubectl label does. labels is not modified.
func Change(labels, set map[string]string, remove []string, overwrite bool) (map[string]string, bool, error) {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	changed := false
	for _, k := range slices.Sorted(maps.Keys(set)) {
		old, had := out[k]
		if had && old != set[k] && !overwrite {
			return nil, false, fmt.Errorf("label %q already has a value (%s), and --overwrite is false", k, old)
		}
		if !had || old != set[k] {
			changed = true
		}
		out[k] = set[k]
	}
	for _, k := range remove {
		if _, had := out[k]; had {
			delete(out, k)
			changed = true
		}
	}
	if len(out) == 0 {
		out = nil
	}
	return out, changed, nil
}
