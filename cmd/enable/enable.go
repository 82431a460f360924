// Package enable implements "fedctl enable".
package enable

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// EnableOptions are the inputs of "fedctl enable".
type EnableOptions struct {
	IO         *iostreams.IOStreams
	Federation func() (*members.File, error)
	Access     func() (members.Access, error)

	Name           string   // TYPE
	Clusters       []string // --cluster; at most one
	ClusterContext string
	Version        string
	Output         string
	DryRun         string // none | client | server
	Timeout        time.Duration
}

// NewCmdEnable returns the enable command. runF, when set, replaces Run
// (tests).
func NewCmdEnable(f *cmdutil.Factory, runF func(*EnableOptions) error) *cobra.Command {
	opts := &EnableOptions{IO: f.IOStreams, Federation: f.Federation, Access: f.Access}
	cmd := &cobra.Command{
		Use:   "enable TYPE [--cluster NAME | --cluster-context CONTEXT] [--version VERSION]",
		Short: "Federate a Kubernetes type beyond KubeFed's defaults",
		Long: `Federate a Kubernetes type, so that Federated<Kind> objects of it are rendered
and propagated, the way kubefedctl enable does for a KubeFed control plane.

KubeFed's default types need no enabling: configmaps, deployments.apps,
ingresses.networking.k8s.io, jobs.batch, namespaces, replicasets.apps, secrets,
serviceaccounts, services and clusterroles.rbac.authorization.k8s.io.

TYPE is resolved through the API discovery of a member cluster (--cluster, by
default the first member by name) or of any kubeconfig context
(--cluster-context), with kubefedctl's rules: it may be the plural
(deployments), the singular, the kind (Deployment), a short name (deploy) or
<plural>.<group> (deployments.apps), in any case. A match in the core group
wins; otherwise a name that matches types of several API groups must be given
as <plural>.<group>. Only the version each API group prefers is considered;
--version names it, and a type is not found at another version.

The resolved group, version, kind, plural and scope are recorded under
"types:" in the federation file. A type of the same group and kind is
replaced, which is how a default type moves to another version; enabling a
type that is enabled already changes nothing.

With -o yaml, enable prints the FederatedTypeConfig and the federated CRD
that kubefedctl enable would create in a KubeFed host cluster, and writes
nothing.

--dry-run=client and --dry-run=server both resolve TYPE through the cluster
and say what would change, leaving the federation file alone; a bare
--dry-run means client, as in kubectl.`,
		Example: `  # Federate StatefulSets, resolved through the first member cluster
  fedctl enable statefulsets

  # Federate a custom resource, resolved through member eu-1
  fedctl enable widgets.example.com --cluster eu-1

  # Print the FederatedTypeConfig and CRD that kubefedctl would create
  fedctl enable statefulsets.apps -o yaml`,
		Args: cmdutil.ExactArgs(1, "TYPE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.Complete(args); err != nil {
				return err
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
	cmd.ValidArgsFunction = opts.completeTypes(f)
	cmdutil.AddClusterFlag(f, cmd, &opts.Clusters, "Member cluster whose API resolves TYPE (default: the first member by name)")
	cmd.Flags().StringVar(&opts.ClusterContext, "cluster-context", "", "Kubeconfig context whose API resolves TYPE, for a cluster that is not a member")
	cmd.Flags().StringVar(&opts.Version, "version", "", "API version of the type, such as v1 or v1beta1 (default: the version its group prefers)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Print the FederatedTypeConfig and CRD kubefedctl would create: yaml; writes nothing")
	cmdutil.AddDryRunFlag(cmd, &opts.DryRun, "none, or client or server: resolve TYPE and say what would change, without writing the federation file")
	cmd.Flags().DurationVar(&opts.Timeout, "timeout", 30*time.Second, "How long to wait for the cluster's API discovery")
	cmd.MarkFlagsMutuallyExclusive("cluster", "cluster-context")
	_ = cmd.RegisterFlagCompletionFunc("cluster-context", cmdutil.Contexts(f))
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// Complete takes TYPE; -o yaml implies a dry run.
func (o *EnableOptions) Complete(args []string) error {
	o.Name = args[0]
	var err error
	if o.DryRun, err = cmdutil.ParseDryRun(o.IO.ErrOut, o.DryRun); err != nil {
		return err
	}
	if o.Output != "" && o.DryRun == cmdutil.DryRunNone {
		o.DryRun = cmdutil.DryRunClient
	}
	return nil
}

// Validate checks TYPE and the flags.
func (o *EnableOptions) Validate() error {
	if strings.TrimSpace(o.Name) == "" {
		return errors.New("TYPE must not be empty")
	}
	if len(o.Clusters) > 1 {
		return fmt.Errorf("--cluster names one member cluster, got %d: %s", len(o.Clusters), strings.Join(o.Clusters, ", "))
	}
	if len(o.Clusters) == 1 && o.ClusterContext != "" {
		return fmt.Errorf("--cluster and --cluster-context cannot be used together")
	}
	if strings.Contains(o.Version, "/") {
		return fmt.Errorf("--version is a version such as v1 or v1beta1, got %q; name the group in TYPE (<plural>.<group>)", o.Version)
	}
	if err := printers.CheckFormat(o.Output, "yaml"); err != nil {
		return err
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout must be positive, got %s", o.Timeout)
	}
	return nil
}

// Run resolves TYPE through the cluster's discovery and records it.
func (o *EnableOptions) Run(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	reg, err := file.Federation.Registry()
	if err != nil {
		return fmt.Errorf("federation file %s: %w", file.Path, err)
	}
	m, err := o.member(file.Federation)
	if err != nil {
		return err
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()

	res, err := o.resolve(ctx, access, m)
	if err != nil {
		return err
	}
	if o.Output == "yaml" {
		return o.printManifests(ctx, access, m, res)
	}

	edit, err := reg.Enable(res.Type)
	if err != nil {
		return fmt.Errorf("cannot enable %s: %w", o.Name, err)
	}
	t := edit.Type
	cs := o.IO.ErrColorScheme()
	if edit.Outcome == typeconfig.Unchanged {
		fmt.Fprintf(o.IO.ErrOut, "federatedtypeconfig/%s is already enabled (%s); nothing to change\n", t.Name(), describe(t))
		return nil
	}
	fed := file.Federation.Clone()
	fed.Types, fed.DisabledTypes = edit.Types, edit.Disabled
	if cmdutil.IsDryRun(o.DryRun) {
		fmt.Fprintf(o.IO.ErrOut, "%s federatedtypeconfig/%s would be enabled (%s)%s; dry run, %s not written\n",
			cs.WarningIcon(), t.Name(), describe(t), detail(edit), file.Path)
		return nil
	}
	if err := file.Save(fed); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "%s federatedtypeconfig/%s enabled (%s)%s\n", cs.SuccessIcon(), t.Name(), describe(t), detail(edit))
	return nil
}

// member is the cluster whose discovery resolves TYPE.
func (o *EnableOptions) member(fed *members.Federation) (members.Member, error) {
	switch {
	case o.ClusterContext != "":
		return members.Member{Name: o.ClusterContext, Context: o.ClusterContext}, nil
	case len(o.Clusters) == 1:
		m, ok := fed.Member(o.Clusters[0])
		if !ok {
			return members.Member{}, &members.NotMemberError{Name: o.Clusters[0], Members: fed.Names()}
		}
		return m, nil
	case len(fed.Clusters) == 0:
		return members.Member{}, errors.New("enable resolves TYPE through a cluster's API, and the federation has no members: join a cluster first or pass --cluster-context CONTEXT")
	}
	return fed.Clusters[0], nil // sorted by name
}

// resolve looks TYPE up in m's discovery. Groups that could not be
// discovered are reported and the others used, as kubefedctl does.
func (o *EnableOptions) resolve(ctx context.Context, access members.Access, m members.Member) (typeconfig.Resource, error) {
	lists, err := members.APIResources(ctx, access, m)
	var partial *members.DiscoveryError
	switch {
	case errors.As(err, &partial):
		fmt.Fprintf(o.IO.ErrOut, "%s %v\n", o.IO.ErrColorScheme().WarningIcon(), partial)
	case err != nil:
		return typeconfig.Resource{}, fmt.Errorf("cannot enable %s: %w", o.Name, err)
	}
	res, err := typeconfig.Lookup(o.Name, o.Version, lists)
	if err != nil {
		var nf *typeconfig.NotFoundError
		if errors.As(err, &nf) {
			nf.Context = m.ContextName()
			if partial != nil {
				return typeconfig.Resource{}, fmt.Errorf("cannot enable %s: cluster %s: %w (or it is in an API group that could not be discovered)", o.Name, m.Name, err)
			}
		}
		return typeconfig.Resource{}, fmt.Errorf("cannot enable %s: cluster %s: %w", o.Name, m.Name, err)
	}
	return res, nil
}

// printManifests writes the FederatedTypeConfig and CRD kubefedctl would
// create; only the CRD's retainReplicas needs the cluster's schema.
func (o *EnableOptions) printManifests(ctx context.Context, access members.Access, m members.Member, res typeconfig.Resource) error {
	replicas, err := members.IntegerReplicas(ctx, access, m, res.Type)
	if err != nil {
		return fmt.Errorf("cannot generate the federated type of %s: %w", res.Name(), err)
	}
	data, err := typeconfig.Manifests(res, replicas)
	if err != nil {
		return err
	}
	_, err = o.IO.Out.Write(data)
	return err
}

// describe is "FederatedDeployment for apps/v1 Deployment, Namespaced".
func describe(t typeconfig.Type) string {
	return fmt.Sprintf("%s for %s %s, %s", t.FederatedKind(), t.APIVersion(), t.Kind, t.Scope)
}

// detail says what else an enable changes besides adding a type.
func detail(e typeconfig.Edit) string {
	switch e.Outcome {
	case typeconfig.Replaced:
		return ", replacing " + e.Previous.APIVersion()
	case typeconfig.Reenabled:
		return "; it is no longer in disabledTypes"
	}
	return ""
}
