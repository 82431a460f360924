package get

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/inventory"
	"github.com/fedctl/fedctl/pkg/members"
)

// complete completes "get": clusters or a type in effect first (offline),
// then member names after clusters, or the names of the objects of TYPE
// fedctl manages, asked of the members within cmdutil.CompletionTimeout.
func (o *GetOptions) complete(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		switch {
		case len(args) == 0:
			names := append(cmdutil.WithPrefix([]string{"clusters"}, toComplete), cmdutil.TypeNames(f, false, toComplete)...)
			return names, cobra.ShellCompDirectiveNoFileComp
		case isClusters(args[0]):
			return cmdutil.ClusterNames(f)(cmd, args[1:], toComplete)
		case len(args) == 1:
			ctx, cancel := context.WithTimeout(cmdutil.CompletionContext(cmd), cmdutil.CompletionTimeout)
			defer cancel()
			return o.objectNames(ctx, f, args[0], toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
}

// objectNames are the names of the objects of typeName that fedctl manages
// in the selected members (--cluster, else all), in the namespace get
// would list (-n, -A, else each context's), merged and sorted.
func (o *GetOptions) objectNames(ctx context.Context, f *cmdutil.Factory, typeName, prefix string) []string {
	fed, access, ok := cmdutil.CompletionMembers(f)
	if !ok {
		return nil
	}
	ms, err := selectMembers(fed, o.Clusters)
	if err != nil {
		return nil
	}
	namespaces, err := o.memberNamespaces(access, fed, ms)
	if err != nil {
		return nil
	}
	_, list, err := inventory.List(ctx, inventory.ListInput{Clients: members.Clients(fed, access, members.NewMemberClient), Members: ms, TypeName: typeName,
		Namespaces: namespaces, Read: inventory.ReadNames, Timeout: cmdutil.CompletionTimeout})
	if err != nil {
		return nil
	}
	var names []string
	for _, mo := range list {
		for _, obj := range mo.Objects {
			names = append(names, obj.GetName())
		}
	}
	return cmdutil.WithPrefix(names, prefix)
}
