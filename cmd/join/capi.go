package join

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/printers"
)

// verifyConcurrency bounds how many Clusters join --all checks at once; a
// check is three small requests, so this is about connections, not load.
const verifyConcurrency = 16

// capiRef is the Cluster API reference of the flags: the management
// cluster, and the namespace of -n, else of the management context.
func (o *JoinOptions) capiRef(access members.Access) members.CAPI {
	ref := members.CAPI{ManagementContext: o.ManagementContext, ManagementKubeconfig: o.ManagementKubeconfig, Namespace: o.Namespace, Cluster: o.CAPICluster}
	if ref.Namespace == "" {
		ref.Namespace = members.CAPINamespace(access, ref)
	}
	return ref
}

// fromCAPI makes m a member from Cluster API: its Cluster must exist and
// not be going away, and with --copy-labels m gets its labels (--label
// winning on a key both set).
func (o *JoinOptions) fromCAPI(ctx context.Context, fed *members.Federation, access members.Access, m *members.Member) error {
	ref := o.capiRef(access)
	m.CAPI = &ref
	if same, ok := fed.MemberOfCluster(ref); ok && same.Name != m.Name {
		// as join --all refuses it: a second member would get every
		// object twice, and count twice in every replica plan
		return fmt.Errorf("Cluster %s/%s is member %s already; a second member of the same cluster would get every object twice (fedctl unjoin %s first to rename it)", ref.Namespace, ref.Cluster, same.Name, same.Name)
	}
	cl, err := members.GetClusterAPICluster(ctx, access, ref)
	if err != nil {
		return err
	}
	if cl.Status.Phase == members.CAPIPhaseNotFound {
		// at join a typo or another namespace, not a deletion
		return fmt.Errorf("no Cluster %s in namespace %s of management cluster %s; list them with %s", ref.Cluster, ref.Namespace, ref.ManagementContext,
			ref.Kubectl("get clusters.cluster.x-k8s.io"))
	}
	if _, msg, gone := cl.Status.NotServing(ref); gone {
		return errors.New(msg)
	}
	if o.CopyLabels && len(cl.Labels) > 0 {
		merged := maps.Clone(cl.Labels)
		maps.Copy(merged, m.Labels)
		m.Labels = merged
	}
	return nil
}

// runAll joins every Cluster that matches, those it can, in one write of
// the federation file, and reports each Cluster on standard error.
func (o *JoinOptions) runAll(ctx context.Context) error {
	file, err := o.Federation()
	if err != nil {
		return err
	}
	access, err := o.Access()
	if err != nil {
		return err
	}
	access.Timeout = o.Timeout
	mgmt := o.capiRef(access)
	namespace, where := mgmt.Namespace, "namespace "+mgmt.Namespace
	if o.AllNamespaces {
		namespace, where = "", "any namespace"
	}
	selector, err := labels.Parse(o.Selector)
	if err != nil {
		return cmdutil.FlagErrorf("--selector %q: %v", o.Selector, err)
	}
	clusters, err := members.ListClusterAPIClusters(ctx, access, mgmt, namespace, selector)
	if err != nil {
		return fmt.Errorf("cannot join from Cluster API: %w", err)
	}
	if len(clusters) == 0 {
		matching := ""
		if !selector.Empty() {
			matching = " matching " + selector.String()
		}
		scope := "-n " + mgmt.Namespace
		if o.AllNamespaces {
			scope = "-A"
		}
		return fmt.Errorf("no Cluster%s in %s of management cluster %s, so nothing was joined; list them with: kubectl --context %s get clusters.%s %s --show-labels",
			matching, where, mgmt.ManagementContext, mgmt.ManagementContext, members.CAPIGroup, scope)
	}
	template := members.Member{Provider: o.Provider, Region: o.Region, Zones: o.Zones}
	joins := members.PlanClusterAPIJoin(file.Federation, clusters, mgmt, template, o.CopyLabels, o.Overwrite)
	members.VerifyClusterAPIJoins(ctx, access, joins, verifyConcurrency, o.Timeout)
	if err := ctx.Err(); err != nil {
		return err
	}

	fed := file.Federation.Clone()
	var joined []members.Member
	for _, j := range joins {
		if j.Joined() {
			var err error
			if j.Member, err = fed.Join(j.Member, o.Overwrite); err != nil {
				return err
			}
			joined = append(joined, j.Member)
		}
	}
	dryRun := cmdutil.IsDryRun(o.DryRun)
	if len(joined) > 0 && !dryRun {
		if err := file.Save(fed); err != nil {
			return err
		}
	}
	if err := o.printAll(fed, joined); err != nil {
		return err
	}
	failed, skipped := o.reportAll(joins, dryRun)
	if dryRun {
		fmt.Fprintf(o.IO.ErrOut, "dry run, %s not written\n", file.Path)
	}
	if len(failed) == 0 {
		return nil
	}
	// they never became members: not "member clusters failed"
	err = fmt.Errorf("%d Cluster(s) not joined: %s", len(failed), strings.Join(failed, ", "))
	if len(joined) == 0 && skipped == 0 {
		return err
	}
	return &cmdutil.ExitError{Code: cmdutil.ExitPartial, Err: err}
}

// printAll prints the federation file (-o yaml|json) or the names of the
// members joined (-o name).
func (o *JoinOptions) printAll(fed *members.Federation, joined []members.Member) error {
	switch o.Output {
	case "yaml":
		data, err := members.Encode(fed)
		if err != nil {
			return err
		}
		_, err = o.IO.Out.Write(data)
		return err
	case "json":
		return printers.JSON(o.IO.Out, fed)
	case "name":
		for _, m := range joined {
			fmt.Fprintf(o.IO.Out, "cluster/%s\n", m.Name)
		}
	}
	return nil
}

// reportAll writes a line per Cluster, in the order of the list (namespace,
// name): joined, skipped or why not. It returns the names that failed and
// how many were skipped.
func (o *JoinOptions) reportAll(joins []members.ClusterAPIJoin, dryRun bool) (failed []string, skipped int) {
	cs := o.IO.ErrColorScheme()
	verb := "joined"
	if dryRun {
		verb = "would be joined"
	}
	for _, j := range joins {
		m := j.Member
		switch {
		case j.Skipped != "":
			skipped++
			fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s skipped: %s\n", cs.WarningIcon(), m.Name, j.Skipped)
		case j.Err != nil:
			failed = append(failed, m.Name)
			fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s not joined: %v\n", cs.FailureIcon(), m.Name, j.Err)
		default:
			fmt.Fprintf(o.IO.ErrOut, "%s cluster/%s %s (%s, Kubernetes %s)\n", cs.SuccessIcon(), m.Name, verb, m.CAPI, j.KubernetesVersion)
		}
	}
	return failed, skipped
}
