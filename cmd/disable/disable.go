// Package disable implements "fedctl disable".
package disable

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// DisableOptions are the inputs of "fedctl disable".
type DisableOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)

	Name   string // TYPE
	Force  bool
	DryRun string // none | client | server
}

// NewCmdDisable returns the disable command. runF, when set, replaces Run
// (tests).
func NewCmdDisable(f *cmdutil.Factory, runF func(*DisableOptions) error) *cobra.Command {
	opts := &DisableOptions{IO: f.IOStreams, Federation: f.Federation}
	cmd := &cobra.Command{
		Use:   "disable TYPE [--force]",
		Short: "Stop federating a Kubernetes type",
		Long: `Stop federating a type: fedctl no longer reads its Federated<Kind>
objects, and an input that holds one is refused (render, apply, delete and
the rest exit 1 naming it), where KubeFed's controllers would pass them
over. Objects of the type that were already propagated stay in the member
clusters as they are; fedctl neither updates nor deletes them (kubefedctl
disable leaves them too). To remove them, run fedctl delete -f with the
input that holds them before disabling the type.

TYPE is looked up in the federation file, without asking any cluster: the
plural, the singular, the kind, <plural>.<group> or the federated kind
(FederatedDeployment), in any case, and the short names of Kubernetes' own
types (deploy, sts); a custom resource's short names are known only to its
cluster.

A type enabled with "fedctl enable" is removed from "types:". KubeFed's default
types are disabled only with --force, which lists them under "disabledTypes:";
"fedctl enable" federates them again.

--dry-run=client and --dry-run=server both leave the federation file alone
(server has nothing more to ask of a server here); a bare --dry-run means
client, as in kubectl.`,
		Example: `  # Stop federating StatefulSets
  fedctl disable statefulsets.apps

  # Stop federating Jobs, a default type
  fedctl disable jobs --force`,
		Args:              cmdutil.ExactArgs(1, "TYPE"),
		ValidArgsFunction: completeTypes(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			var err error
			if opts.DryRun, err = cmdutil.ParseDryRun(opts.IO.ErrOut, opts.DryRun); err != nil {
				return err
			}
			if strings.TrimSpace(opts.Name) == "" {
				return cmdutil.FlagErrorf("TYPE must not be empty")
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run()
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "Also disable one of KubeFed's default types")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: say what would change without writing the federation file")
	return cmd
}

// Run removes the type from the federation file.
func (o *DisableOptions) Run() error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	reg, err := file.Federation.Registry()
	if err != nil {
		return fmt.Errorf("federation file %s: %w", file.Path, err)
	}
	edit, err := reg.Disable(o.Name, o.Force)
	if err != nil {
		return fmt.Errorf("cannot disable %s: %w", o.Name, err)
	}
	t := edit.Type
	if edit.Outcome == typeconfig.Unchanged {
		fmt.Fprintf(o.IO.ErrOut, "federatedtypeconfig/%s is already disabled; nothing to change\n", t.Name())
		return nil
	}
	what := ""
	if edit.Outcome == typeconfig.DisabledDefault {
		what = " (a default type, now listed in disabledTypes)"
	}
	cs := o.IO.ErrColorScheme()
	fed := file.Federation.Clone()
	fed.Types, fed.DisabledTypes = edit.Types, edit.Disabled
	if cmdutil.IsDryRun(o.DryRun) {
		fmt.Fprintf(o.IO.ErrOut, "%s federatedtypeconfig/%s would be disabled%s; dry run, %s not written\n", cs.WarningIcon(), t.Name(), what, file.Path)
		return nil
	}
	if err := file.Save(fed); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "%s federatedtypeconfig/%s disabled%s\n", cs.SuccessIcon(), t.Name(), what)
	fmt.Fprintf(o.IO.ErrOut, "fedctl no longer reads %s objects: an input that holds one is refused (render, apply, delete), so delete their member objects first (fedctl delete -f) if they should go; %s objects it already propagated stay in the member clusters, neither updated nor deleted\n", t.FederatedKind(), t.Kind)
	return nil
}

// completeTypes offers the names of the types in effect, from the
// federation file only.
func completeTypes(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		file, err := f.Federation()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		reg, err := file.Federation.Registry()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, t := range reg.Types() {
			if strings.HasPrefix(t.Name(), toComplete) {
				out = append(out, t.Name())
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
