// Package render implements "fedctl render".
package render

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// RenderOptions are the inputs of "fedctl render".
type RenderOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	// Live plans replicas from the members' live state, as apply does
	// (--live); render otherwise touches no cluster.
	Live bool

	Filenames []string
	// AllowEmpty accepts a run with nothing to do (--allow-empty).
	AllowEmpty bool
	Recursive  bool
	Kustomize  string
	Selector   string
	Clusters   []string
	Namespace  string
	Output     string
	OutputDir  string
}

// NewCmdRender returns the render command. runF, when set, replaces Run.
func NewCmdRender(f *cmdutil.Factory, runF func(*RenderOptions) error) *cobra.Command {
	opts := &RenderOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "render -f FILENAME [--cluster NAME]... [-o yaml|json | --output-dir DIR]",
		Short: "Print the objects each member cluster would get",
		Long: `Print the object every member cluster would get for the federated objects in
the given manifests, exactly as apply would send them, without touching any
cluster: no kubeconfig is read and nothing goes over the network. With --live,
replica plans are made as apply makes them, from the members' current replicas
and capacity and over the members that answer (the only reads render then does).

Placement, ReplicaSchedulingPreferences and overrides follow KubeFed. Output is
sorted by cluster, then in install order (Namespaces and CRDs first, so that
kubectl apply -f - creates what the rest needs first), then by group, kind,
namespace and name, and is identical on every run, so it can be diffed and
committed. With --output-dir, each object is
written to DIR/CLUSTER/NAMESPACE/KIND_NAME.yaml (cluster-scoped objects under
DIR/CLUSTER/_cluster/) for GitOps tools.`,
		Example: `  # Everything every member would get
  fedctl render -f manifests/

  # What eu-1 would get, applied with kubectl directly
  fedctl render -f manifests/ --cluster eu-1 | kubectl --context eu-1 apply -f -

  # A tree of files per cluster for a GitOps repository
  fedctl render -R -f manifests/ --output-dir rendered/

  # A kustomize overlay, or manifests from a web server
  fedctl render -k overlays/prod
  fedctl render -f https://example.com/shop/federated.yaml`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.Validate(); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run(cmd.Context())
		},
	}
	cmdutil.AddFilenameFlags(cmd, &opts.Filenames, &opts.Recursive)
	cmdutil.AddInputFlags(cmd, &opts.Kustomize, &opts.Selector)
	cmdutil.AddAllowEmptyFlag(cmd, &opts.AllowEmpty)
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only show the objects of this member cluster (repeatable)")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "yaml", "Output format: yaml or json")
	cmd.Flags().BoolVar(&opts.Live, "live", false, "Plan replicas from the members' current replicas and capacity, as apply does (reads the members)")
	cmd.Flags().StringVar(&opts.OutputDir, "output-dir", "", "Write one YAML file per object under this directory instead of printing")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagsMutuallyExclusive("output", "output-dir")
	return cmd
}

// Validate checks the flags.
func (o *RenderOptions) Validate() error {
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		return err
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output must be yaml or json, got %q", o.Output)
	}
	return nil
}

// Run renders and prints.
func (o *RenderOptions) Run(ctx context.Context) error {
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context:    ctx,
		Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
		AllowEmpty: o.AllowEmpty,
		Failing:    cmdutil.FailOnAny, // nothing is printed from an input with errors
		Live:       cmdutil.OptInLive(o.Live, cmdutil.NewMemberClients(o.Access, nil, cmdutil.Tuning{})),
	})
	if err != nil {
		return err
	}
	res := in.Result
	switch {
	case o.OutputDir != "":
		clusters := in.Clusters
		if err := printers.WriteTree(o.OutputDir, slices.Sorted(slices.Values(clusters)), res.Targets); err != nil {
			return err
		}
		removed, err := printers.PruneTree(o.OutputDir, in.Federation.Names())
		for _, name := range removed {
			fmt.Fprintf(o.IO.ErrOut, "removed %s: %s is no longer a member cluster\n", filepath.Join(o.OutputDir, name), name)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(o.IO.ErrOut, "%s wrote %d objects for %d clusters to %s\n", o.IO.ErrColorScheme().SuccessIcon(), len(res.Targets), len(clusters), o.OutputDir)
		return nil
	case o.Output == "json":
		return printers.RenderedJSON(o.IO.Out, res.Targets)
	default:
		return printers.RenderedYAML(o.IO.Out, res.Targets)
	}
}
