package members

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"
)

// ClusterAPIJoin is what "join --all --from-capi" does with one Cluster:
// join it as Member, skip it, or fail.
type ClusterAPIJoin struct {
	Cluster ClusterAPICluster
	// Member is the member the Cluster becomes, named after it.
	Member Member
	// Skipped, when set, says why the Cluster is left alone: it is a
	// member already. A note, not a failure.
	Skipped string
	// Err says why the Cluster cannot be joined: a failure.
	Err error
	// KubernetesVersion is the version Verify found.
	KubernetesVersion string
}

// Joined says whether the Cluster is to be recorded: planned, verified, not
// skipped.
func (j ClusterAPIJoin) Joined() bool { return j.Skipped == "" && j.Err == nil }

// PlanClusterAPIJoin decides what becomes of each of clusters (as
// ListClusterAPIClusters sorts them): a member named after the Cluster,
// reached through the management cluster of mgmt, with template's
// provider, region and zones, and with the Cluster's labels when
// copyLabels. It reads nothing and changes neither fed nor clusters.
//
// A Cluster whose name is a member already is skipped, unless overwrite,
// so that running join --all again joins what is new, as kubectl apply
// leaves alone what is there. A name that is not a valid member name, the
// second Cluster of a name (-A, in another namespace), and a Cluster that
// is deleted, being deleted or failed cannot be joined.
func PlanClusterAPIJoin(fed *Federation, clusters []ClusterAPICluster, mgmt CAPI, template Member, copyLabels, overwrite bool) []ClusterAPIJoin {
	out := make([]ClusterAPIJoin, len(clusters))
	first := map[string]ClusterAPICluster{}
	for i, cl := range clusters {
		ref := CAPI{ManagementContext: mgmt.ManagementContext, ManagementKubeconfig: mgmt.ManagementKubeconfig, Namespace: cl.Namespace, Cluster: cl.Name}
		j := ClusterAPIJoin{Cluster: cl, Member: Member{Name: cl.Name, CAPI: &ref, Provider: template.Provider, Region: template.Region, Zones: template.Zones}}
		if copyLabels && len(cl.Labels) > 0 {
			j.Member.Labels = maps.Clone(cl.Labels)
		}
		prev, dup := first[cl.Name]
		if !dup {
			first[cl.Name] = cl
		}
		old, exists := fed.Member(cl.Name)
		same, joined := fed.MemberOfCluster(ref)
		switch {
		case joined && same.Name != cl.Name:
			// joined before under another name (join NAME --from-capi):
			// a second member would get every object twice
			j.Skipped = fmt.Sprintf("already joined as member %s", same.Name)
		case len(ValidateName(cl.Name)) > 0:
			j.Err = fmt.Errorf("%q is not a valid member name: %s", cl.Name, strings.Join(ValidateName(cl.Name), "; "))
		case dup:
			j.Err = fmt.Errorf("Cluster %s/%s would be joined as %s too; join this one under another name: fedctl join NAME --from-capi %s -n %s --management-context %s",
				prev.Namespace, prev.Name, cl.Name, cl.Name, cl.Namespace, mgmt.ManagementContext)
		case exists && !overwrite:
			j.Skipped = fmt.Sprintf("already a member (%s); --overwrite replaces it", old.Origin())
		}
		if j.Err == nil && j.Skipped == "" {
			if _, msg, gone := cl.Status.NotServing(ref); gone {
				j.Err = errors.New(msg)
			}
		}
		out[i] = j
	}
	return out
}

// VerifyClusterAPIJoins runs Verify on the members that joins are to
// record, concurrently (at most concurrency at a time), each within
// timeout, and keeps each one's version or error in joins.
func VerifyClusterAPIJoins(ctx context.Context, a Access, joins []ClusterAPIJoin, concurrency int, timeout time.Duration) {
	var todo []int
	for i := range joins {
		if joins[i].Joined() {
			todo = append(todo, i)
		}
	}
	errs := ForEach(ctx, concurrency, timeout, len(todo), func(vctx context.Context, k int) {
		j := &joins[todo[k]]
		j.KubernetesVersion, j.Err = Verify(vctx, a, j.Member)
	})
	for k, err := range errs {
		if err != nil {
			joins[todo[k]].Err = err
		}
	}
}

// MemberOfCluster is the member of f that is ref's Cluster, if any: the
// same Cluster of the same management cluster.
func (f *Federation) MemberOfCluster(ref CAPI) (Member, bool) {
	for _, m := range f.Clusters {
		if c := m.CAPI; c != nil && c.ManagementContext == ref.ManagementContext && c.ManagementKubeconfig == ref.ManagementKubeconfig &&
			c.Namespace == ref.Namespace && c.Cluster == ref.Cluster {
			return m, true
		}
	}
	return Member{}, false
}
