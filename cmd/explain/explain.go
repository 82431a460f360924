// Package explain implements "fedctl explain".
package explain

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/explain"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/rollout"
)

// ExplainOptions are the inputs of "fedctl explain".
type ExplainOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)
	NewClient  func(members.Access, members.Member) (members.Client, error)
	// Live plans replicas from the members' live state, as apply does,
	// and says what the live figures changed (--live).
	Live bool
	// Rollout shows apply --rollout's waves (--rollout, --waves).
	Rollout bool
	Waves   string

	Filenames []string
	// AllowEmpty accepts a run with nothing to do (--allow-empty).
	AllowEmpty bool
	Recursive  bool
	Kustomize  string
	Selector   string
	Names      []string
	Clusters   []string
	Namespace  string
	Output     string
}

// NewCmdExplain returns the explain command. runF, when set, replaces Run.
func NewCmdExplain(f *cmdutil.Factory, runF func(*ExplainOptions) error) *cobra.Command {
	opts := &ExplainOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access, NewClient: members.NewMemberClient}
	cmd := &cobra.Command{
		Use:   "explain -f FILENAME [NAME | KIND/NAME | NAMESPACE/NAME]... [--cluster NAME]... [-o text|json|yaml]",
		Short: "Explain placement, replica plans and overrides of federated objects",
		Long: `Explain, for each federated object in the given manifests, why fedctl renders
what it renders, without touching any cluster:

- placement: the clusters list or each clusterSelector term against each
  member's labels, unknown names dropped, the intersection with the
  FederatedNamespace's placement, system namespaces;
- the replica plan of a ReplicaSchedulingPreference step by step, from the
  planner itself: clusters considered, their order by weight and FNV-1 hash,
  minimums, each weighted pass with every cluster's ceil share and max cap,
  what was left unplaced, and the plan;
- per member cluster, each override applied in order with the value it found
  and the value it wrote, the ReplicaSchedulingPreference's /spec/replicas
  included, and the override that fails, if one does.

NAME selects objects by name; KIND/NAME (FederatedDeployment/web or
deployment/web), NAMESPACE/NAME and KIND/NAMESPACE/NAME narrow it down. Objects
are sorted by group, kind, namespace and name. --cluster limits the overrides
shown to those members; placement and plans always consider every member.

The text output marks matches with ✓ and ✗ whether or not it goes to a
terminal (colour only on a terminal). -o json and -o yaml print the same
explanation as {"apiVersion": "fedctl.io/v1alpha1", "kind": "Explanation",
"members": [...], "objects": [...]} for tools.

An input that does not decode is reported as fedctl render reports it and
nothing is explained. Objects that fail to render (an invalid selector, a
failing override) are explained with the failure and exit 0: the
explanation is the product.`,
		Example: `  # Why every object goes where it goes
  fedctl explain -f manifests/

  # How the replicas of the Deployment web are split, and what eu-1 gets
  fedctl explain -f manifests/ deployment/web --cluster eu-1

  # The same for a script
  fedctl explain -f manifests/ shop/web -o json | jq '.objects[0].scheduling.plan'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
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
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Only show the overrides of this member cluster (repeatable)")
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "Output format: text, json or yaml")
	cmd.Flags().BoolVar(&opts.Rollout, "rollout", false, "Also show the waves apply --rollout goes through, in order, with their members and the objects each gets")
	cmd.Flags().StringVar(&opts.Waves, "waves", "", "With --rollout: the waves instead of the federation file's, as apply --waves")
	cmd.Flags().BoolVar(&opts.Live, "live", false, "Plan replicas from the members' current replicas and capacity, as apply does, and say what those figures changed (reads the members)")
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Validate checks the flags and arguments.
func (o *ExplainOptions) Validate() error {
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		return err
	}
	if o.Waves != "" && !o.Rollout {
		return fmt.Errorf("--waves needs --rollout")
	}
	if o.Output != "text" && o.Output != "json" && o.Output != "yaml" {
		return fmt.Errorf("--output must be text, json or yaml, got %q", o.Output)
	}
	for _, n := range o.Names {
		if n == "" || strings.HasPrefix(n, "/") || strings.HasSuffix(n, "/") || strings.Contains(n, "//") || strings.Count(n, "/") > 2 {
			return fmt.Errorf("%q is not NAME, KIND/NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME", n)
		}
	}
	return nil
}

// Run explains and prints.
func (o *ExplainOptions) Run(ctx context.Context) error {
	// One client per member for the live read and the DNS records' read.
	clients := cmdutil.NewMemberClients(o.Access, o.NewClient, cmdutil.Tuning{Timeout: propagate.DefaultTimeout})
	// Nothing is explained from an input that does not decode, and the
	// errors are render's, all of them.
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context:    ctx,
		Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Selector: o.Selector, Namespace: o.Namespace, Clusters: o.Clusters,
		AllowEmpty: o.AllowEmpty,
		Failing:    cmdutil.FailOnDecode, KeepWarnings: true,
		Live: cmdutil.OptInLive(o.Live, clients),
	})
	if err != nil {
		return err
	}
	rep, err := explain.Build(explain.Input{Set: in.Set, Types: in.Types, Members: in.Members, Only: o.Clusters, Names: o.Names, Live: in.Live})
	if err != nil {
		return err
	}
	if o.Rollout {
		flags := cmdutil.RolloutFlags{Enabled: true, Waves: o.Waves}
		plan, err := flags.Plan(in.File, false)
		if err != nil {
			return err
		}
		rep.Rollout = explainRollout(plan, in.Result)
	}
	warnings := in.Result.Warnings
	if len(o.Names) > 0 {
		warnings = relevant(warnings, rep)
	}
	cmdutil.PrintWarnings(o.IO, warnings)
	switch o.Output {
	case "json":
		err = printers.JSON(o.IO.Out, rep)
	case "yaml":
		err = printers.YAML(o.IO.Out, rep)
	default:
		err = explain.Text(o.IO.Out, rep, o.IO.ColorScheme())
		if err == nil && o.Live && in.Set.DNS.Records() {
			err = o.explainDNS(ctx, in, clients)
		}
	}
	if err != nil {
		return err
	}
	if n := failing(rep); n > 0 {
		cs := o.IO.ErrColorScheme()
		what := "1 federated object explained fails"
		if n > 1 {
			what = fmt.Sprintf("%d federated objects explained fail", n)
		}
		fmt.Fprintf(o.IO.ErrOut, "%s %s to render for some or all members (see the explanation); fedctl render and apply report this as an error\n", cs.WarningIcon(), what)
	}
	return nil
}

// failing counts the objects with an error of their own or a failing
// override.
func failing(rep *explain.Report) int {
	n := 0
	for _, o := range rep.Objects {
		bad := len(o.Errors) > 0
		for _, c := range o.Overrides {
			bad = bad || c.Error != nil
		}
		if bad {
			n++
		}
	}
	return n
}

// relevant keeps, when names select some objects, the warnings about the
// objects explained (their preferences included) and those about no object
// in particular.
func relevant(warnings []*manifest.Error, rep *explain.Report) []*manifest.Error {
	ids := map[string]bool{}
	for _, o := range rep.Objects {
		id := o.Name
		if o.Namespace != "" {
			id = o.Namespace + "/" + o.Name
		}
		ids[o.Kind+" "+id] = true
		ids["ReplicaSchedulingPreference "+id] = true
	}
	var out []*manifest.Error
	for _, w := range warnings {
		if w.Object == "" || ids[w.Object] {
			out = append(out, w)
		}
	}
	return out
}

// explainRollout is the rollout plan with each member's count of member
// objects.
func explainRollout(plan *rollout.Plan, res *render.Result) *explain.Rollout {
	counts := map[string]int{}
	for _, t := range res.Targets {
		counts[t.Cluster]++
	}
	out := &explain.Rollout{Timeout: plan.Timeout.String(), MaxFailures: plan.MaxFailures, Warnings: plan.Warnings}
	if plan.Soak > 0 {
		out.Soak = plan.Soak.String()
	}
	for _, w := range plan.Waves {
		rw := explain.RolloutWave{Name: w.Name, Clusters: w.Clusters, MaxConcurrency: w.MaxConcurrency, Objects: map[string]int{}}
		for _, c := range w.Clusters {
			rw.Objects[c] = counts[c]
		}
		out.Waves = append(out.Waves, rw)
	}
	return out
}

// explainDNS says, with --live, why each DNS record's member gives the
// targets it gives, as fedctl dns --why does.
func (o *ExplainOptions) explainDNS(ctx context.Context, in *cmdutil.Rendered, clients *cmdutil.MemberClients) error {
	of, err := clients.Of(in.Federation)
	if err != nil {
		return err
	}
	res, err := (&cmdutil.DNSFlags{}).ComputeDNS(ctx, o.IO, in, of, nil, propagate.DefaultTimeout)
	if err != nil {
		return fmt.Errorf("DNS records: %w", err)
	}
	fmt.Fprintln(o.IO.Out)
	fmt.Fprintln(o.IO.Out, "DNS records (from what the members say now):")
	dns.WriteWhy(o.IO.Out, res)
	return nil
}
