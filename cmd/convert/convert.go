// Package convert implements "fedctl convert": the federation as another
// system's input, for a team that moves to a control plane with nothing
// redeployed.
package convert

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
)

// ExitApproximated is the exit code when the converted output makes the
// other system produce something other than what fedctl renders, or may
// make it behave differently later.
const ExitApproximated = 3

// ConvertOptions are the inputs of "fedctl convert".
type ConvertOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	// Access resolves the members' kubeconfig files for the registration
	// commands; nothing reaches a cluster but with --live.
	Access func() (members.Access, error)
	// Live plans replicas from the members' live state, as apply does
	// (--live), so that the static weights match what runs now.
	Live bool

	Filenames []string
	Recursive bool
	Kustomize string
	// Docs, when set, are the input already read (federate --to karmada),
	// in place of Filenames and Kustomize.
	Docs      []manifest.Document
	Selector  string
	Namespace string
	// To is the system: "karmada" or "argocd".
	To string
	// OutputDir, when set, receives files instead of stdout.
	OutputDir string
	// Output is "yaml" (the documents) or "json" (the report, with the
	// documents when there is no OutputDir).
	Output string
	// Verify reads the Karmada output back and compares what it renders.
	Verify bool

	ArgoCD ArgoCDOptions
	// argoCDFlagsGiven are the Argo CD flags given (--to karmada refuses
	// them).
	argoCDFlagsGiven []string
}

// argoCDFlags are the flags of --to argocd that have defaults (--repo and
// --path have none, and are checked by value).
var argoCDFlags = []string{"revision", "name", "project", "argocd-namespace"}

// ArgoCDOptions say where the rendered tree lives for Argo CD.
type ArgoCDOptions struct {
	Repo      string
	Path      string
	Revision  string
	Name      string
	Project   string
	Namespace string
}

// NewCmdConvert returns the convert command. runF, when set, replaces Run.
func NewCmdConvert(f *cmdutil.Factory, runF func(*ConvertOptions) error) *cobra.Command {
	opts := &ConvertOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "convert --to karmada|argocd (-f FILENAME | -k DIR) [--output-dir DIR] [-o yaml|json]",
		Short: "Write the federation as Karmada policies or an Argo CD ApplicationSet",
		Long: `Write the federated input, whatever its dialect, as the input of a control plane
that keeps it reconciled from then on, so that a team can move from fedctl to
it with nothing redeployed: the member objects stay where they are and the
new owner adopts them.

--to karmada writes plain resource templates plus PropagationPolicies and
OverridePolicies (Cluster* for cluster-scoped kinds) that make Karmada
create, in the current members, the member objects fedctl renders:
placement as cluster names (none for a clusterSelector of {}, which
KubeFed gives members that join later too), replica
splits as Divided static weights equal to each member's count, per-member
differences as plaintext overrides in the strict json-patch form Karmada
accepts, conflictResolution Overwrite so that Karmada adopts what fedctl
applied. It prints the karmadactl join command of each member. Members whose
names Karmada refuses (a DNS-1123 label of at most 48 characters) are given
one, said in a note. --verify reads the output back as Karmada input,
renders it and compares member object by member object with what the input
renders.

--to argocd writes render's tree (DIR/CLUSTER/NAMESPACE/KIND_NAME.yaml),
without fedctl's markers, plus DIR/applicationset.yaml: one ApplicationSet
whose list generator maps each member to its directory (--repo, --path) and
to the Argo CD cluster of the member's name, synced with server-side apply
(allowEmpty: a member left with nothing is pruned, its directory kept by
.fedctl-keep); retainReplicas becomes ignoreDifferences of /spec/replicas,
and a note at each Secret says its data goes into git in clear.
The federation file's rollout waves become the ApplicationSet's RollingSync
steps (each Application labelled fedctl.io/wave), so that Argo CD syncs the
members wave by wave. It prints the argocd cluster add command of each member.

Every construct the other system cannot express exactly (a ReplicaScheduling-
Preference's minReplicas, maxReplicas and rebalance, a member planned 0
replicas, kubefed.io/orphan and retainReplicas for Karmada, rollout soaks and
failure budgets, DNS records) is listed on stderr with its file:line, and in
the report of -o json; the exit code is then 3. Informing notes (an object
placed nowhere, a renamed member, a "*" weight made explicit) do not change
it. The conversion uses the offline plan, as render does, unless --live
reads the members and plans as apply does: then the replica counts (Karmada's
static weights, Argo CD's rendered tree) are those apply would give now, so
that a preference that keeps replicas where they are (rebalance: false) or a
member that does not answer is converted as it runs, not as the manifests
alone would plan it.

Afterwards, "fedctl release" hands the member objects over.`,
		Example: `  # Karmada templates and policies, checked by reading them back
  fedctl convert --to karmada -f manifests/ --output-dir karmada/ --verify

  # The same on stdout, with the report as JSON
  fedctl convert --to karmada -f manifests/ -o json

  # An Argo CD ApplicationSet over the rendered tree committed at deploy/ in a repository
  fedctl convert --to argocd -f manifests/ --repo https://git.example.com/shop.git --path deploy --output-dir deploy/`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range argoCDFlags {
				if cmd.Flags().Changed(name) {
					opts.argoCDFlagsGiven = append(opts.argoCDFlagsGiven, "--"+name)
				}
			}
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
	cmd.Flags().StringVarP(&opts.Namespace, "namespace", "n", "default", "Namespace of namespaced federated objects that name none")
	cmd.Flags().StringVar(&opts.To, "to", "", "System to write for: karmada or argocd (required)")
	cmd.Flags().StringVar(&opts.OutputDir, "output-dir", "", "Write files under this directory (empty, or written by fedctl convert before) instead of printing")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "yaml", "Output format: yaml (the documents) or json (the report, with the documents unless --output-dir)")
	cmd.Flags().BoolVar(&opts.Live, "live", false, "Plan replicas from the members' current replicas and capacity, as apply does (reads the members)")
	cmd.Flags().BoolVar(&opts.Verify, "verify", false, "Karmada: read the output back as Karmada input and compare what it renders with the input's rendering; a difference exits 3")
	cmd.Flags().StringVar(&opts.ArgoCD.Repo, "repo", "", "Argo CD: the Git repository the --output-dir tree is committed to")
	cmd.Flags().StringVar(&opts.ArgoCD.Path, "path", "", "Argo CD: the tree's directory in the repository (member directories are PATH/CLUSTER)")
	cmd.Flags().StringVar(&opts.ArgoCD.Revision, "revision", "HEAD", "Argo CD: the repository revision to sync")
	cmd.Flags().StringVar(&opts.ArgoCD.Name, "name", "fedctl", "Argo CD: the ApplicationSet's name; each Application is NAME-CLUSTER")
	cmd.Flags().StringVar(&opts.ArgoCD.Project, "project", "default", "Argo CD: the project of the Applications")
	cmd.Flags().StringVar(&opts.ArgoCD.Namespace, "argocd-namespace", "argocd", "Argo CD: the namespace Argo CD runs in, where the ApplicationSet goes")
	_ = cmd.RegisterFlagCompletionFunc("to", cobra.FixedCompletions([]string{"karmada", "argocd"}, cobra.ShellCompDirectiveNoFileComp))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// federationPath is the path of the run's federation file, "" when not
// known.
func federationPath(in *cmdutil.Rendered) string {
	if in.File == nil {
		return ""
	}
	return in.File.Path
}

// failoverNotes are, with --live, the members that did not answer: the
// live plan left them out (failover), so the output does too, which is
// today's outage made permanent, not the federation: an inexact note each
// (exit 3), and a --verify that compares with that same plan cannot say
// otherwise.
func failoverNotes(in *cmdutil.Rendered) []export.Note {
	var notes []export.Note
	for _, m := range in.NotAnswering() {
		notes = append(notes, export.Note{Where: export.FederationFile, Object: "cluster " + m, Members: []string{m},
			Message: "did not answer: --live planned without it (failover), so the output leaves its replicas out; convert again once it answers, or without --live"})
	}
	return notes
}

// Validate checks the flags.
func (o *ConvertOptions) Validate() error {
	if err := cmdutil.CheckInputFlags(o.Filenames, o.Kustomize); err != nil {
		return err
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output must be yaml or json, got %q", o.Output)
	}
	switch o.To {
	case "karmada":
		if o.ArgoCD.Repo != "" || o.ArgoCD.Path != "" {
			return fmt.Errorf("--repo and --path are for --to argocd")
		}
		if len(o.argoCDFlagsGiven) > 0 {
			return fmt.Errorf("%s: for --to argocd only", strings.Join(o.argoCDFlagsGiven, ", "))
		}
	case "argocd":
		if o.ArgoCD.Repo == "" || o.ArgoCD.Path == "" {
			return fmt.Errorf("--to argocd needs --repo URL and --path PATH: where the tree is committed, for the ApplicationSet to point at")
		}
		if o.OutputDir == "" {
			return fmt.Errorf("--to argocd writes a tree of files: give --output-dir DIR (the directory committed at --path)")
		}
		if o.Verify {
			return fmt.Errorf("--verify is for --to karmada; the Argo CD tree is render's output itself")
		}
	case "":
		return fmt.Errorf("give --to karmada or --to argocd")
	default:
		return fmt.Errorf("--to must be karmada or argocd, got %q", o.To)
	}
	return nil
}

// Run converts and writes.
func (o *ConvertOptions) Run(ctx context.Context) error {
	in, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Context:    ctx,
		Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize, Docs: o.Docs, Selector: o.Selector, Namespace: o.Namespace,
		Failing: cmdutil.FailOnAny, // a conversion of an input with errors would silently differ
		Live:    cmdutil.OptInLive(o.Live, cmdutil.NewMemberClients(o.Access, nil, cmdutil.Tuning{})),
	})
	if err != nil {
		return err
	}
	if o.To == "argocd" {
		return o.runArgoCD(in)
	}
	return o.runKarmada(in)
}
