package convert

import (
	"fmt"
	"strings"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/members"
)

// runKarmada converts the rendered input into Karmada's templates and
// policies, reads them back when asked, and writes them with the report.
func (o *ConvertOptions) runKarmada(in *cmdutil.Rendered) error {
	conv, err := export.ToKarmada(export.Input{Set: in.Set, Result: in.Result, Members: in.Members})
	if err != nil {
		return err
	}
	notes := append(conv.Notes, failoverNotes(in)...)
	if r := in.Federation.Rollout; r != nil && len(r.Waves) > 0 {
		notes = append(notes, export.Note{Where: export.FederationFile, Object: "rollout",
			Message: "Karmada has no rollout waves: a change reaches every member at once (policies' suspension.dispatchingOnClusters can stage it by hand)"})
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	rep := newReport("karmada", notes, federationPath(in))
	for _, name := range in.Federation.Names() {
		m, _ := in.Federation.Member(name)
		rep.Clusters = append(rep.Clusters, Registration{Member: name, Name: conv.ClusterNames[name], Command: karmadaJoin(access, m, conv.ClusterNames[name])})
	}
	if o.Verify {
		diffs, err := export.Verify(conv.Documents, in.Types, in.Members, conv.ClusterNames, in.Result, conv.Notes)
		if err != nil {
			return fmt.Errorf("internal error, please report: the converted output does not read back as Karmada input: %w", err)
		}
		verified := len(diffs) == 0
		rep.Verified, rep.Differences = &verified, diffs
	}
	if o.OutputDir != "" {
		files, err := writeKarmadaDir(o.OutputDir, conv.Documents, rep.Clusters)
		if err != nil {
			return err
		}
		rep.OutputDir, rep.Files = o.OutputDir, files
		fmt.Fprintf(o.IO.ErrOut, "%s wrote %d documents to %s (%d files)\n", o.IO.ErrColorScheme().SuccessIcon(), len(conv.Documents), o.OutputDir, len(files))
	} else if o.Output == "json" {
		rep.Items = conv.Documents
	}
	return o.finish(rep, conv.Documents, "karmadactl join (on the Karmada control plane's kubeconfig)")
}

// karmadaJoin is the command that registers member m with Karmada under
// name, in Push mode, from the kubeconfig fedctl reaches it with (its own,
// else --kubeconfig, else the standard rules).
func karmadaJoin(access members.Access, m members.Member, name string) string {
	if m.CAPI != nil {
		return withCAPIKubeconfig(m, "karmadactl join "+members.ShellQuote(name)+" --cluster-kubeconfig "+capiKubeconfigFile(m))
	}
	cmd := []string{"karmadactl", "join", name, "--cluster-context", members.ShellQuote(m.ContextName())}
	// Named whenever one file holds the context: karmadactl's own
	// kubeconfig is the Karmada control plane's, which does not.
	if path := access.ContextFile(m); path != "" {
		cmd = append(cmd, "--cluster-kubeconfig", members.ShellQuote(path))
	}
	return strings.Join(cmd, " ")
}

// withCAPIKubeconfig wraps cmd, which reads the kubeconfig of member m
// from Cluster API, in writing that file from the management cluster
// (readable by the user alone) and removing it afterwards, whether cmd
// succeeds or not (the subshell's trap: under the script's set -e a
// failing cmd would otherwise end it before the removal): fedctl never
// stores it, and neither should the commands it prints.
func withCAPIKubeconfig(m members.Member, cmd string) string {
	file := capiKubeconfigFile(m)
	// Member names are DNS-1123 subdomains: file needs no quoting inside
	// the trap. An interrupt exits through the EXIT trap too (dash runs
	// no EXIT trap on a signal by itself).
	return fmt.Sprintf("(umask 077; trap 'rm -f %s' EXIT; trap 'exit 130' INT TERM HUP; %s > %s && %s)", file, m.CAPI.Clusterctl("get kubeconfig "+m.CAPI.Cluster), file, cmd)
}

func capiKubeconfigFile(m members.Member) string { return members.ShellQuote(m.Name + ".kubeconfig") }
