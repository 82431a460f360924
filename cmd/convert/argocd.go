package convert

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/rollout"
)

// applicationSetFile is the ApplicationSet's file at the top of the tree,
// beside the member directories.
const applicationSetFile = "applicationset.yaml"

// runArgoCD writes render's tree without fedctl's markers, the
// ApplicationSet over it and the members' registration commands. Every
// part is made before the first file is written, so that an error (a
// rollout that does not plan) leaves the directory as it was.
func (o *ConvertOptions) runArgoCD(in *cmdutil.Rendered) error {
	clusters := slices.Sorted(slices.Values(in.Federation.Names()))
	argo := export.ArgoCD{
		Repo: o.ArgoCD.Repo, Path: o.ArgoCD.Path, Revision: o.ArgoCD.Revision,
		Name: o.ArgoCD.Name, Project: o.ArgoCD.Project, Namespace: o.ArgoCD.Namespace,
		Retained: export.RetainedReplicas(in.Result.Targets),
	}
	notes := append(export.ArgoCDNotes(in.Set, in.Result.Targets), failoverNotes(in)...)
	if r := in.Federation.Rollout; r != nil && len(r.Waves) > 0 {
		plan, err := rollout.FromFile(in.File, "")
		if err != nil {
			return err
		}
		for _, w := range plan.Waves {
			argo.Waves = append(argo.Waves, export.Wave{Name: w.Name, Clusters: w.Clusters, MaxUpdate: w.MaxConcurrency})
		}
		notes = append(notes, export.WaveNotes(argo.Waves, clusters, r.Soak, r.Timeout, r.MaxFailures)...)
	}
	appSet, err := printers.EncodeYAML(export.ApplicationSet(argo, clusters))
	if err != nil {
		return err
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	rep := newReport("argocd", notes, federationPath(in))
	for _, name := range clusters {
		m, _ := in.Federation.Member(name)
		rep.Clusters = append(rep.Clusters, Registration{Member: name, Name: name, Command: argoCDClusterAdd(access, m)})
	}
	targets := make([]render.Target, len(in.Result.Targets))
	rep.Files = []string{applicationSetFile, argoCDScript}
	for i, t := range in.Result.Targets {
		t.Object = export.ArgoCDObject(t)
		targets[i] = t
		rep.Files = append(rep.Files, filepath.Join(t.Cluster, printers.TreeFile(t.Namespace(), t.Type.Kind, t.Name())))
	}
	for _, c := range clusters {
		rep.Files = append(rep.Files, filepath.Join(c, printers.KeepFile))
	}
	slices.Sort(rep.Files)
	rep.OutputDir = o.OutputDir

	if err := printers.WriteTree(o.OutputDir, clusters, targets); err != nil {
		return err
	}
	removed, err := printers.PruneTree(o.OutputDir, clusters)
	for _, name := range removed {
		fmt.Fprintf(o.IO.ErrOut, "removed %s: %s is no longer a member cluster\n", filepath.Join(o.OutputDir, name), name)
	}
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(o.OutputDir, applicationSetFile), appSet, 0o644); err != nil {
		return fmt.Errorf("--output-dir: %w", err)
	}
	script := registrationScript("Registers the members with Argo CD under the names the ApplicationSet uses.\n# Run after argocd login.", rep.Clusters)
	if err := writeFileAtomic(filepath.Join(o.OutputDir, argoCDScript), script, 0o755); err != nil {
		return fmt.Errorf("--output-dir: %w", err)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s wrote %d objects for %d clusters and %s to %s; commit it at %s in %s, then kubectl apply -n %s -f %s\n",
		o.IO.ErrColorScheme().SuccessIcon(), len(targets), len(clusters), applicationSetFile, o.OutputDir, o.ArgoCD.Path, o.ArgoCD.Repo,
		o.ArgoCD.Namespace, filepath.Join(o.OutputDir, applicationSetFile))
	return o.finish(rep, nil, "argocd cluster add (after argocd login)")
}

// argoCDClusterAdd is the command that registers member m with Argo CD
// under its fedctl name, from the kubeconfig fedctl reaches it with (for
// a member from Cluster API, its kubeconfig's current context, as fedctl
// uses).
func argoCDClusterAdd(access members.Access, m members.Member) string {
	if m.CAPI != nil {
		f := capiKubeconfigFile(m)
		return withCAPIKubeconfig(m, fmt.Sprintf(`argocd cluster add "$(kubectl --kubeconfig %s config current-context)" --name %s --yes --kubeconfig %s`, f, members.ShellQuote(m.Name), f))
	}
	cmd := []string{"argocd", "cluster", "add", members.ShellQuote(m.ContextName()), "--name", members.ShellQuote(m.Name), "--yes"}
	if path := access.ContextFile(m); path != "" {
		cmd = append(cmd, "--kubeconfig", members.ShellQuote(path))
	}
	return strings.Join(cmd, " ")
}
