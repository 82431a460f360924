package enable

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/members"
)

// completeTypes completes TYPE with the types the member enable would ask
// (--cluster, --cluster-context, else the first member) serves, as
// "<plural>" or "<plural>.<group>", leaving out the types already in
// effect; discovery is given cmdutil.CompletionTimeout.
func (o *EnableOptions) completeTypes(f *cmdutil.Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 || f.Federation == nil || f.Access == nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		file, err := f.Federation()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		m, err := o.member(file.Federation)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		access, err := f.Access()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		access.Timeout, access.Warnings, access.RequestLog = cmdutil.CompletionTimeout, nil, nil
		ctx, cancel := context.WithTimeout(cmdutil.CompletionContext(cmd), cmdutil.CompletionTimeout)
		defer cancel()
		lists, _ := members.APIResources(ctx, access, m) // what was discovered, even in part
		enabled := cmdutil.TypeNames(f, false, "")
		var names []string
		for _, list := range lists {
			gv, err := schema.ParseGroupVersion(list.GroupVersion)
			if err != nil {
				continue
			}
			for _, r := range list.APIResources {
				if strings.Contains(r.Name, "/") {
					continue // a subresource
				}
				name := r.Name
				if gv.Group != "" {
					name += "." + gv.Group
				}
				if !slices.Contains(enabled, name) {
					names = append(names, name)
				}
			}
		}
		return cmdutil.WithPrefix(names, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
