package cmdutil

import (
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/parallel"
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

// CompletionTimeout bounds a completion that asks the members: a shell
// waiting on TAB for longer feels broken, so a member that is slow or down
// just offers nothing.
const CompletionTimeout = 2 * time.Second

// namespacesMapping is the core group's namespaces.
var namespacesMapping = members.MappingOf("", "v1", "namespaces", false)

// Namespaces completes -n/--namespace with the namespaces of the first
// member (by name; of those --cluster names, when given) that lists them
// within CompletionTimeout; members are asked in parallel.
func Namespaces(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		fed, access, ok := CompletionMembers(f)
		if !ok {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		if fed.Namespace != "" {
			// a federation scoped to a namespace takes no other -n
			return WithPrefix([]string{fed.Namespace}, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		ms := fed.Clusters
		if selected, err := cmd.Flags().GetStringArray("cluster"); err == nil && len(selected) > 0 {
			ms = slices.DeleteFunc(slices.Clone(ms), func(m members.Member) bool { return !slices.Contains(selected, m.Name) })
		}
		ctx, cancel := context.WithTimeout(CompletionContext(cmd), CompletionTimeout)
		defer cancel()
		names := make([][]string, len(ms))
		listed := make([]bool, len(ms))
		var g parallel.Group
		for i, m := range ms {
			g.Go(func() {
				c, err := members.NewMemberClient(access, m)
				if err != nil {
					return
				}
				items, err := c.ListMetadata(ctx, namespacesMapping, members.ListOptions{})
				if err != nil {
					return
				}
				for _, it := range items {
					names[i] = append(names[i], it.Name)
				}
				listed[i] = true
			})
		}
		g.Wait()
		for i := range ms {
			if listed[i] {
				return WithPrefix(names[i], toComplete), cobra.ShellCompDirectiveNoFileComp
			}
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// RegisterNamespaceCompletion completes cmd's -n/--namespace, when it has
// one, with Namespaces.
func RegisterNamespaceCompletion(f *Factory, cmd *cobra.Command) {
	if cmd.Flags().Lookup("namespace") != nil {
		_ = cmd.RegisterFlagCompletionFunc("namespace", Namespaces(f))
	}
}

// TypeNames are the names of the types in effect (the federation file's,
// offline): "<plural>" or "<plural>.<group>", with prefix, sorted. With
// federated, the names of their federated types: "federated<plural>", as
// "fedctl status TYPE NAME" takes them.
func TypeNames(f *Factory, federated bool, prefix string) []string {
	file, err := f.Federation()
	if err != nil {
		return nil
	}
	reg, err := file.Federation.Registry()
	if err != nil {
		return nil
	}
	var names []string
	for _, t := range reg.Types() {
		name := t.Name()
		if federated {
			name = "federated" + t.Plural
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return WithPrefix(slices.Compact(names), prefix)
}

// CompletionMembers is the federation whose members a completion asks
// (sorted by name; at least one), and how to reach them within
// CompletionTimeout.
func CompletionMembers(f *Factory) (*members.Federation, members.Access, bool) {
	if f.Federation == nil || f.Access == nil {
		return nil, members.Access{}, false
	}
	file, err := f.Federation()
	if err != nil || len(file.Federation.Clusters) == 0 {
		return nil, members.Access{}, false
	}
	access, err := f.Access()
	if err != nil {
		return nil, members.Access{}, false
	}
	access.Timeout = CompletionTimeout
	access.Warnings = nil // nothing but completions may reach the shell
	access.RequestLog = nil
	return file.Federation, access, true
}

// CompletionContext is the context a completion runs in.
func CompletionContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// WithPrefix keeps the names that start with prefix, sorted, once each.
func WithPrefix(names []string, prefix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Contexts completes --cluster-context with the contexts of the kubeconfig
// (--kubeconfig, KUBECONFIG, ~/.kube/config), offline.
func Contexts(f *Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if f.Access == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		access, err := f.Access()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		raw, err := access.RawConfig(members.Member{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return WithPrefix(slices.Collect(maps.Keys(raw.Contexts)), toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
