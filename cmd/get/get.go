// Package get implements "fedctl get".
package get

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// probeConcurrency bounds how many members are probed at once; a probe is
// two small requests, so this is about not opening hundreds of connections.
const probeConcurrency = 16

// clusterTypes are the names "get" accepts for member clusters, including
// KubeFed's resource name so that habits carry over.
var clusterTypes = []string{"clusters", "cluster", "kubefedclusters", "kubefedcluster"}

// GetOptions are the inputs of "fedctl get clusters" and "fedctl get TYPE".
type GetOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Names []string
	// Print are kubectl's output flags: -o, --no-headers, --show-labels,
	// -L, --sort-by, --template.
	Print   *cmdutil.PrintFlags
	Timeout time.Duration
	// IgnoreNotReady keeps the exit status 0 when members are not ready
	// (--ignore-not-ready).
	IgnoreNotReady bool

	// TypeName is the TYPE of "get TYPE [NAME]"; empty for "get clusters".
	TypeName      string
	Name          string
	Namespace     string
	AllNamespaces bool
	Clusters      []string
	// ShowManagedFields keeps metadata.managedFields in -o yaml|json
	// (--show-managed-fields), which kubectl also leaves out by default.
	ShowManagedFields bool
}

// NewCmdGet returns the get command. runF, when set, replaces Run.
func NewCmdGet(f *cmdutil.Factory, runF func(*GetOptions) error) *cobra.Command {
	opts := &GetOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, Print: cmdutil.NewPrintFlags("wide", "yaml", "json", "name")}
	cmd := &cobra.Command{
		Use:   "get (clusters [NAME...] | TYPE [NAME])",
		Short: "List member clusters, or the objects fedctl manages in them",
		Long: `List member clusters with their health, probed in parallel, or with TYPE the
objects fedctl manages in the members.

get clusters: READY follows KubeFed's cluster health check: True when
/healthz answers "ok", False when it answers something else, Offline when the
cluster does not answer within --timeout (reason ClusterNotReachable), and
ConfigMalformed when the member's kubeconfig context cannot be used. When any
member is not ready (any READY but True) the exit code is 3, after the table,
and 1 when none of them is ready, so that a pipeline stops on an unhealthy
federation; --ignore-not-ready keeps it 0. -o name probes nothing and exits 0.

Members from Cluster API (join --from-capi) have their Cluster read from the
management cluster first: PHASE is its status.phase, and -o wide adds its
CONTROLPLANEREADY and INFRASTRUCTUREREADY (v1beta1: the conditions of those
types, else status.controlPlaneReady and status.infrastructureReady; v1beta2:
the ControlPlaneAvailable and InfrastructureReady conditions, else
status.initialization) and shows CONTEXT as capi:MGMT/NAMESPACE/CLUSTER. A
Cluster that is deleted (PHASE NotFound), being deleted (Deleting) or Failed
is not ready (READY False, reason ClusterDeleted, ClusterDeleting or
ClusterFailed) and its API server is not probed. PHASE Unknown means the
Cluster could not be read; MESSAGE says why. -o yaml|json carry the same
under status.clusterAPI. These columns appear only when a member comes from
Cluster API.

get TYPE [NAME]: the member objects labelled app.kubernetes.io/managed-by:
fedctl, merged across members with a CLUSTER column first and the columns
kubectl shows (the API servers' own table printing; -o wide adds the rest),
sorted by cluster, namespace and name. TYPE is resolved as kubectl does
(plural, singular, kind, short name, NAME.GROUP or NAME.VERSION.GROUP), in
each member's own discovery: each is listed at the version it serves, the
first member that knows the name decides which type it means, and members
that do not serve it are named in a note on standard error. Without -n or
-A each member is read in its context's namespace; a federation scoped to a
namespace is read there alone (-A and no -n mean it, another -n is an
error). -o yaml|json prints a MemberObjectList of {cluster, object} with
the values of Secret data replaced by REDACTED; -o name prints
"CLUSTER KIND.GROUP/NAME" lines. A member that cannot be read is reported on
standard error and the others are shown; the exit code is then 3.

kubectl's output flags work on both, through k8s.io/cli-runtime's printers:
-o jsonpath=, go-template= (and their -file forms) address the document -o
json prints; -o custom-columns=HEADER:PATH,... and custom-columns-file=FILE
address each row: a member (get clusters) or a member object (get TYPE,
after a CLUSTER column); --sort-by=PATH sorts the rows, --no-headers leaves
the headers out, --show-labels and -L LABEL show labels (the members' own
labels for get clusters).`,
		Example: `  # List members with their health and Kubernetes version
  fedctl get clusters

  # Add contexts, labels and the reason of each state
  fedctl get clusters -o wide

  # Names of the members only, for scripts
  fedctl get clusters -o name

  # Show the members' health without failing when one is down
  fedctl get clusters --ignore-not-ready

  # The Deployments fedctl manages, in every member and namespace
  fedctl get deployments -A

  # One ConfigMap in namespace shop, in two members
  fedctl get cm settings -n shop --cluster eu-1 --cluster us-1

  # Members with a column for their region label, sorted by it
  fedctl get clusters -L region --sort-by .labels.region

  # The Cluster API phase of each member's Cluster, for scripts
  fedctl get clusters -o custom-columns=NAME:.name,PHASE:.status.clusterAPI.phase

  # The image each member runs, as custom columns after CLUSTER
  fedctl get deployments -n shop -o custom-columns=NAME:.metadata.name,IMAGE:.spec.template.spec.containers[0].image`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("%q needs a resource type: clusters, or a type such as deployments", cmd.CommandPath())
			}
			if isClusters(args[0]) {
				for _, name := range []string{"namespace", "all-namespaces", "cluster"} {
					if cmd.Flags().Changed(name) {
						return cmdutil.FlagErrorf("--%s does not apply to \"get clusters\"; name the clusters as arguments", name)
					}
				}
				return nil
			}
			if len(args) > 2 {
				return cmdutil.FlagErrorf("%q takes TYPE and at most one NAME, got %d arguments", cmd.CommandPath(), len(args))
			}
			if cmd.Flags().Changed("ignore-not-ready") {
				return cmdutil.FlagErrorf("--ignore-not-ready applies to \"get clusters\" only")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if isClusters(args[0]) {
				opts.Names = args[1:]
			} else {
				opts.TypeName = args[0]
				if len(args) == 2 {
					opts.Name = args[1]
				}
				if opts.AllNamespaces && opts.Name != "" {
					return cmdutil.FlagErrorf("a NAME cannot be combined with --all-namespaces; give -n NAMESPACE instead")
				}
			}
			if err := opts.Print.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if opts.Timeout <= 0 {
				return cmdutil.FlagErrorf("--timeout must be positive, got %s", opts.Timeout)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmd.ValidArgsFunction = opts.complete(f)
	opts.Print.AddFlags(cmd)
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Second, "How long to wait for each member to answer")
	cmd.Flags().BoolVar(&opts.IgnoreNotReady, "ignore-not-ready", false, "With clusters: exit 0 even when members are not ready")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "", "With TYPE: the namespace to list (default: each member context's namespace)")
	cmd.Flags().BoolVarP(&opts.AllNamespaces, "all-namespaces", "A", false, "With TYPE: list in every namespace (in a federation scoped to a namespace, that namespace)")
	cmd.Flags().BoolVar(&opts.ShowManagedFields, "show-managed-fields", false, "With TYPE and -o yaml|json: keep metadata.managedFields, which are left out otherwise (as kubectl get)")
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "With TYPE: only list in this member cluster (repeatable)")
	cmd.MarkFlagsMutuallyExclusive("namespace", "all-namespaces")
	return cmd
}

// ClusterList is the -o yaml|json shape: each member with a status shaped
// like a KubeFedCluster's, so scripts reading KubeFed's can read it.
type ClusterList struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Items      []Cluster `json:"items"`
}

// Cluster is one member and its probed health.
type Cluster struct {
	members.Member `json:",inline"`
	Status         members.Health `json:"status"`
}

// Run probes the members and prints them sorted by name, or with TypeName
// lists the member objects fedctl manages.
func (o *GetOptions) Run(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	if o.TypeName != "" {
		return o.runObjects(ctx, file)
	}
	selected, err := selectMembers(file.Federation, o.Names)
	if err != nil {
		return err
	}
	if o.Print.Output == "name" { // names need no probe
		for _, m := range selected {
			fmt.Fprintf(o.IO.Out, "cluster/%s\n", m.Name)
		}
		return nil
	}
	if len(selected) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No member clusters in %s; add one with \"fedctl join NAME --cluster-context CONTEXT\".\n", file.Path)
		if o.Print.IsTable() {
			return nil
		}
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	health := members.ProbeAll(ctx, access, selected, probeConcurrency, o.Timeout)
	if err := ctx.Err(); err != nil {
		return err
	}

	list := ClusterList{APIVersion: members.APIVersion, Kind: "ClusterList", Items: make([]Cluster, len(selected))}
	for i, m := range selected {
		list.Items[i] = Cluster{Member: m, Status: health[i]}
	}
	if err := o.printClusters(list); err != nil || o.IgnoreNotReady {
		return err
	}
	return notReady(list)
}

// notReady is the exit status of "get clusters": an error naming the
// members that are not ready, which exits 3 when some are and 1 when none
// is ready (as get TYPE and status exit when no member could be read); nil
// when every one is.
func notReady(list ClusterList) error {
	var names []string
	for _, c := range list.Items {
		if !c.Status.Ready() {
			names = append(names, fmt.Sprintf("%s (%s)", c.Name, c.Status.State()))
		}
	}
	if len(names) == 0 {
		return nil
	}
	code := cmdutil.ExitPartial
	if len(names) == len(list.Items) {
		code = cmdutil.ExitFailure
	}
	return &cmdutil.ExitError{Code: code, Err: fmt.Errorf("%d of %d member cluster(s) not ready: %s; --ignore-not-ready to exit 0 all the same", len(names), len(list.Items), strings.Join(names, ", "))}
}

func (o *GetOptions) printClusters(list ClusterList) error {
	if done, err := o.Print.PrintData(o.IO.Out, list); done {
		return err
	}
	docs := make([]map[string]any, len(list.Items))
	for i, c := range list.Items {
		doc, err := printers.Document(c)
		if err != nil {
			return err
		}
		docs[i] = doc
	}
	if cols := o.Print.CustomColumns(); cols != nil {
		t := printers.CustomColumnsTable(cols, nil, docs, nil, func(i int) map[string]string { return list.Items[i].Labels })
		return t.Write(o.IO.Out, o.Print.TableOptions(nil))
	}
	return clusterTable(list, docs, o.Print.ShowLabels).Write(o.IO.Out, o.Print.TableOptions(o.readyColors()))
}

// clusterTable is get clusters' table: NAME READY VERSION, and with -o
// wide CONTEXT LABELS MESSAGE (LABELS only without --show-labels, which
// adds its own). When a member comes from Cluster API, PHASE follows
// VERSION, and -o wide adds CONTROLPLANEREADY and INFRASTRUCTUREREADY
// before MESSAGE.
func clusterTable(list ClusterList, docs []map[string]any, showLabels bool) *printers.ObjectTable {
	capi := slices.ContainsFunc(list.Items, func(c Cluster) bool { return c.CAPI != nil })
	t := &printers.ObjectTable{}
	columns := []string{"NAME", "READY", "VERSION"}
	if capi {
		columns = append(columns, "PHASE")
	}
	for _, h := range columns {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: h})
	}
	wide := []string{"CONTEXT"}
	if !showLabels {
		wide = append(wide, "LABELS")
	}
	if capi {
		wide = append(wide, "CONTROLPLANEREADY", "INFRASTRUCTUREREADY")
	}
	wide = append(wide, "MESSAGE")
	for _, h := range wide {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: h, Priority: 1})
	}
	for i, c := range list.Items {
		state := c.Status.State()
		var notes []string
		if cd := c.Cordoned; cd != nil {
			// As kubectl get nodes shows a cordoned node.
			state += ",SchedulingDisabled"
			note := "cordoned since " + cd.Since
			if cd.Reason != "" {
				note += ": " + cd.Reason
			}
			notes = append(notes, note)
		}
		for _, mg := range c.Migrations {
			notes = append(notes, fmt.Sprintf("-l %s migrated to %s since %s", mg.Selector, mg.To, mg.Since))
		}
		if m := c.Status.Message(); m != "" {
			notes = append(notes, m)
		}
		var ca members.ClusterAPIStatus
		if c.Status.ClusterAPI != nil {
			ca = *c.Status.ClusterAPI
		}
		message := strings.Join(notes, "; ")
		cells := []any{c.Name, state, c.Status.KubernetesVersion}
		if capi {
			cells = append(cells, ca.Phase)
		}
		cells = append(cells, contextColumn(c.Member))
		if !showLabels {
			cells = append(cells, labels.FormatLabels(c.Labels))
		}
		if capi {
			cells = append(cells, ca.ControlPlaneReady, ca.InfrastructureReady)
		}
		cells = append(cells, message)
		t.Rows = append(t.Rows, printers.ObjectRow{Cells: cells, Labels: c.Labels, Doc: docs[i]})
	}
	return t
}

// contextColumn is what CONTEXT shows: the member's context, or for a
// member from Cluster API capi:MGMT/NAMESPACE/CLUSTER, without spaces so
// that awk sees one column.
func contextColumn(m members.Member) string {
	if c := m.CAPI; c != nil {
		return fmt.Sprintf("capi:%s/%s/%s", c.ManagementContext, c.Namespace, c.Cluster)
	}
	return m.ContextName()
}

// readyColors colours READY on a terminal: True green, Unknown plain,
// anything else red.
func (o *GetOptions) readyColors() map[string]func(string) string {
	cs := o.IO.ColorScheme()
	if !cs.Enabled() {
		return nil
	}
	return map[string]func(string) string{"READY": func(state string) string {
		switch strings.TrimSuffix(state, ",SchedulingDisabled") {
		case "True":
			return cs.Green(state)
		case "Unknown":
			return state
		}
		return cs.Red(state)
	}}
}

// selectMembers returns the named members, or all of them when no name is
// given; an unknown name is an error listing the members.
func selectMembers(fed *members.Federation, names []string) ([]members.Member, error) {
	if len(names) == 0 {
		return fed.Clusters, nil
	}
	var out []members.Member
	for _, name := range slices.Compact(slices.Sorted(slices.Values(names))) {
		m, ok := fed.Member(name)
		if !ok {
			return nil, &members.NotMemberError{Name: name, Members: fed.Names()}
		}
		out = append(out, m)
	}
	return out, nil
}

func isClusters(arg string) bool { return slices.Contains(clusterTypes, strings.ToLower(arg)) }
