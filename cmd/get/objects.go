package get

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/inventory"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// runObjects is "fedctl get TYPE [NAME]": every selected member resolves
// the type in its own discovery and is listed at the version it serves, in
// parallel (inventory.List). Members that fail are reported on stderr and
// make the exit code 3 (1 when every one failed); members that do not
// serve the type hold none of its objects, which a note on stderr says.
func (o *GetOptions) runObjects(ctx context.Context, file *members.File) error {
	fed := file.Federation
	selected, err := selectMembers(fed, o.Clusters)
	if err != nil {
		return err
	}
	if len(selected) == 0 {
		return fmt.Errorf("no member clusters in %s; add one with \"fedctl join NAME --cluster-context CONTEXT\"", file.Path)
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	clients := members.Clients(fed, access, members.NewMemberClient)
	namespaces, err := o.memberNamespaces(access, fed, selected)
	if err != nil {
		return err
	}
	everyNamespace := len(namespaces) == 0 // -A, unless the federation is scoped
	read := inventory.ReadObjects
	if o.Print.IsTable() {
		read = inventory.ReadTable
	}
	t, list, err := inventory.List(ctx, inventory.ListInput{
		Clients: clients, Members: selected, TypeName: o.TypeName, Namespaces: namespaces, Name: o.Name,
		Read:         read,
		WholeObjects: o.Print.SortBy != "",
		Timeout:      o.Timeout,
	})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	cs := o.IO.ErrColorScheme()
	var failed, notServed []string
	rows := 0
	for _, mo := range list {
		if mo.NotServed {
			notServed = append(notServed, mo.Cluster)
			continue
		}
		if mo.Err != nil {
			failed = append(failed, mo.Cluster)
			fmt.Fprintf(o.IO.ErrOut, "%s %s\n", cs.Red("error:"), mo.Err)
			continue
		}
		rows += len(mo.Objects)
		if mo.Table != nil {
			rows += len(mo.Table.Rows)
		}
	}
	if len(failed) > 0 && len(failed) == len(list)-len(notServed) {
		return fmt.Errorf("no member cluster could be listed: %s", strings.Join(failed, ", "))
	}
	if len(notServed) > 0 {
		// It holds none of the type's objects: a CRD installed on
		// some members only. Said on stderr, so that a missing CRD
		// is not taken for objects that are missing.
		fmt.Fprintf(o.IO.ErrOut, "%s %s not served by %s\n", cs.Yellow("note:"), t.Name(), strings.Join(notServed, ", "))
	}
	if o.Name != "" && rows == 0 {
		// kubectl get TYPE NAME fails on a name that is not there
		what := fmt.Sprintf("%s %q", t.Name(), o.Name)
		if t.Namespaced() && !everyNamespace {
			what += " " + listedIn(namespaces)
		}
		if len(failed) > 0 {
			return &cmdutil.ExitError{Code: cmdutil.ExitPartial, Err: fmt.Errorf("none of the %d member cluster(s) listed holds %s managed by fedctl; %s could not be listed and may", len(list)-len(failed)-len(notServed), what, strings.Join(failed, ", "))}
		}
		return fmt.Errorf("no member cluster holds %s managed by fedctl", what)
	}
	if err := o.printObjects(list, rows, t.Namespaced(), namespaces); err != nil {
		return err
	}
	if len(failed) > 0 {
		return &cmdutil.PartialError{Failed: failed}
	}
	return nil
}

// listedIn says which namespaces were listed, for messages: "in namespace
// shop", or each member's context namespace when they differ.
func listedIn(namespaces map[string]string) string {
	names := slices.Compact(slices.Sorted(maps.Values(namespaces)))
	if len(names) == 1 {
		return "in namespace " + names[0]
	}
	return "in namespaces " + strings.Join(names, ", ") + " (each member's context namespace; -n or -A to choose)"
}

func (o *GetOptions) printObjects(list []inventory.MemberObjects, rows int, namespaced bool, namespaces map[string]string) error {
	everyNamespace := len(namespaces) == 0 // -A, unless the federation is scoped
	if !o.Print.IsTable() && o.Print.CustomColumns() == nil && o.Print.Output != "name" {
		_, err := o.Print.PrintData(o.IO.Out, inventory.ObjectList(list, o.ShowManagedFields))
		return err
	}
	switch {
	case o.Print.Output == "name":
		for _, mo := range list {
			for _, obj := range mo.Objects {
				fmt.Fprintf(o.IO.Out, "%s %s\n", mo.Cluster, inventory.ObjectName(obj))
			}
		}
		return nil
	}
	if rows == 0 {
		where := "in the member clusters"
		if namespaced && !everyNamespace {
			// as kubectl's "No resources found in default namespace."
			where = listedIn(namespaces) + " of the member clusters"
		}
		fmt.Fprintf(o.IO.ErrOut, "No %s managed by fedctl found %s.\n", o.TypeName, where)
		return nil
	}
	opts := o.Print.TableOptions(nil)
	if cols := o.Print.CustomColumns(); cols != nil {
		// The columns address the member object itself, as in kubectl;
		// CLUSTER comes first. Secret data is redacted as in -o json.
		items := inventory.ObjectList(list, o.ShowManagedFields).Items
		docs := make([]map[string]any, len(items))
		for i, it := range items {
			docs[i] = it.Object
		}
		t := printers.CustomColumnsTable(cols, []string{"CLUSTER"}, docs,
			func(i int) []any { return []any{items[i].Cluster} },
			func(i int) map[string]string { return (&unstructured.Unstructured{Object: docs[i]}).GetLabels() })
		return t.Write(o.IO.Out, opts)
	}
	return inventory.ObjectTable(list, namespaced && everyNamespace).Write(o.IO.Out, opts)
}

// memberNamespaces is the namespace get lists in each member of ms: -n's,
// every one with -A (""), else the member's context namespace. A
// federation scoped to a namespace is read there alone, as render and
// apply read it: -A and no -n mean that namespace, another -n is an error.
func (o *GetOptions) memberNamespaces(access members.Access, fed *members.Federation, ms []members.Member) (map[string]string, error) {
	namespace, all := o.Namespace, o.AllNamespaces
	if fed.Namespace != "" {
		scoped, err := cmdutil.ScopedNamespace(fed, namespace)
		if err != nil {
			return nil, err
		}
		namespace, all = scoped, false
	}
	namespaces := map[string]string{}
	for _, m := range ms {
		switch {
		case all:
		case namespace != "":
			namespaces[m.Name] = namespace
		default:
			namespaces[m.Name] = members.ContextNamespace(access, m)
		}
	}
	return namespaces, nil
}
