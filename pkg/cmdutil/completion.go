package cmdutil

import (
	"strings"

	"github.com/spf13/cobra"
)

// ClusterNames completes member cluster names from the federation file. It
// reads only that file, so it is instant and works offline; names already on
// the command line are not offered again.
func ClusterNames(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		file, err := f.Federation()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		used := map[string]bool{}
		for _, a := range args {
			used[a] = true
		}
		var out []cobra.Completion
		for _, m := range file.Federation.Clusters {
			if !used[m.Name] && strings.HasPrefix(m.Name, toComplete) {
				out = append(out, m.Name)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// AddClusterFlag adds the repeatable --cluster flag, completed with member
// names, to cmd.
func AddClusterFlag(f *Factory, cmd *cobra.Command, target *[]string, usage string) {
	cmd.Flags().StringArrayVar(target, "cluster", nil, usage)
	_ = cmd.RegisterFlagCompletionFunc("cluster", ClusterNames(f))
}

// NoArgs rejects positional arguments as a usage error.
func NoArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return FlagErrorf("%q accepts no arguments, got %q", cmd.CommandPath(), args)
	}
	return nil
}

// ExactArgs requires n positional arguments, naming them in the error.
func ExactArgs(n int, names ...string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return FlagErrorf("%q needs %s, got %d argument(s)", cmd.CommandPath(), strings.Join(names, " "), len(args))
		}
		return nil
	}
}
