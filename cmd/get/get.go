// Package get implements "fedctl get".
package get

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

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

// GetOptions are the inputs of "fedctl get clusters".
type GetOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Names   []string
	Output  string
	Timeout time.Duration
}

// NewCmdGet returns the get command. runF, when set, replaces Run.
func NewCmdGet(f *cmdutil.Factory, runF func(*GetOptions) error) *cobra.Command {
	opts := &GetOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "get clusters [NAME...]",
		Short: "List member clusters and their health",
		Long: `List member clusters with their health, probed in parallel.

READY follows KubeFed's cluster health check: True when /healthz answers "ok",
False when it answers something else, Offline when the cluster does not
answer within --timeout (reason ClusterNotReachable), and ConfigMalformed when
the member's kubeconfig context cannot be used. An unhealthy member is
reported, not an error: the exit code is 0 unless the command itself fails.`,
		Example: `  # List members with their health and Kubernetes version
  fedctl get clusters

  # Add contexts, labels and the reason of each state
  fedctl get clusters -o wide

  # Names of the members only, for scripts
  fedctl get clusters -o name`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmdutil.FlagErrorf("%q needs a resource type: clusters", cmd.CommandPath())
			}
			if !slices.Contains(clusterTypes, strings.ToLower(args[0])) {
				return cmdutil.FlagErrorf("unknown resource type %q: fedctl get supports clusters", args[0])
			}
			return nil
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return []cobra.Completion{"clusters"}, cobra.ShellCompDirectiveNoFileComp
			}
			return cmdutil.ClusterNames(f)(cmd, args[1:], toComplete)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args[1:]
			if err := printers.CheckFormat(opts.Output, "wide", "yaml", "json", "name"); err != nil {
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
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Output format: wide, yaml, json or name")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 5*time.Second, "How long to wait for each member to answer")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"wide", "yaml", "json", "name"}, cobra.ShellCompDirectiveNoFileComp))
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

// Run probes the members and prints them sorted by name.
func (o *GetOptions) Run(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	selected, err := selectMembers(file.Federation, o.Names)
	if err != nil {
		return err
	}
	if o.Output == "name" { // names need no probe
		for _, m := range selected {
			fmt.Fprintf(o.IO.Out, "cluster/%s\n", m.Name)
		}
		return nil
	}
	if len(selected) == 0 {
		fmt.Fprintf(o.IO.ErrOut, "No member clusters in %s; add one with \"fedctl join NAME --cluster-context CONTEXT\".\n", file.Path)
		if o.Output == "" || o.Output == "wide" {
			return nil
		}
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	probeCtx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	health := members.ProbeAll(probeCtx, access, selected, probeConcurrency)
	if err := ctx.Err(); err != nil {
		return err
	}

	list := ClusterList{APIVersion: members.APIVersion, Kind: "ClusterList", Items: make([]Cluster, len(selected))}
	for i, m := range selected {
		list.Items[i] = Cluster{Member: m, Status: health[i]}
	}
	switch o.Output {
	case "yaml":
		return printers.YAML(o.IO.Out, list)
	case "json":
		return printers.JSON(o.IO.Out, list)
	}
	return o.printTable(list)
}

func (o *GetOptions) printTable(list ClusterList) error {
	cs := o.IO.ColorScheme()
	wide := o.Output == "wide"
	headers := []string{"NAME", "READY", "VERSION"}
	if wide {
		headers = append(headers, "CONTEXT", "LABELS", "MESSAGE")
	}
	t := printers.NewTable(headers...)
	for _, c := range list.Items {
		state := c.Status.State()
		switch state {
		case "True":
			state = cs.Green(state)
		case "Unknown":
		default:
			state = cs.Red(state)
		}
		row := []string{c.Name, state, c.Status.KubernetesVersion}
		if wide {
			row = append(row, c.ContextName(), formatLabels(c.Labels), c.Status.Message())
		}
		t.AddRow(row...)
	}
	return t.Write(o.IO.Out)
}

func formatLabels(labels map[string]string) string {
	parts := make([]string, 0, len(labels))
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
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
