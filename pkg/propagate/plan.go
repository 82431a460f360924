package propagate

import (
	"context"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// Plan is the report of --dry-run=client: every member object that would
// be applied, with no request sent. Without live state it cannot say which
// objects are new, changed or to be removed.
func Plan(res *render.Result, clusters []string) *Report {
	report := &Report{DryRun: "client"}
	for _, name := range slices.Sorted(slices.Values(clusters)) {
		cr := ClusterResult{Cluster: name, Objects: []ObjectResult{}}
		for _, t := range res.Targets {
			if t.Cluster == name {
				u := &unstructured.Unstructured{Object: t.Object}
				cr.Objects = append(cr.Objects, ObjectResult{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName(), FederatedObject: t.Source.SourceRef(), Action: Planned})
			}
		}
		cr.Objects = append(cr.Objects, renderFailures(res, name)...)
		report.Clusters = append(report.Clusters, cr)
	}
	return report
}

// PlanLive is --dry-run=client when deletions matter (--prune): like Run,
// it reads each member (discovery, LISTs, GETs) to tell new, changed and
// unchanged objects and what would be deleted, but it sends no write at
// all, not even a dry run, so the API servers validate nothing.
func PlanLive(ctx context.Context, in Input) *Report {
	in.Clients = readOnly(in.Clients)
	report := runMembers(ctx, in, applyMode(true), (*memberSync).run)
	report.DryRun = "client"
	return report
}

// PlanDelete is fedctl delete --dry-run=client: like Delete, it reads each
// member to find what would be deleted or unmarked, but sends no write at
// all, not even a dry run.
func PlanDelete(ctx context.Context, in Input) *Report {
	in.Clients = readOnly(in.Clients)
	report := Delete(ctx, in)
	report.DryRun = "client"
	return report
}

// ReadOnly wraps every member's client so that writes are answered
// without being sent (a client-side dry run).
func ReadOnly(clients func(string) (members.Client, error)) func(string) (members.Client, error) {
	return readOnly(clients)
}

// readOnly wraps every member's client in a readOnlyClient.
func readOnly(clients func(string) (members.Client, error)) func(string) (members.Client, error) {
	return func(cluster string) (members.Client, error) {
		a, err := clients(cluster)
		if err != nil {
			return nil, err
		}
		return readOnlyClient{a}, nil
	}
}

// readOnlyClient reads through to a member and answers every write
// itself, as if it had succeeded.
type readOnlyClient struct{ members.Client }

func (readOnlyClient) Apply(_ context.Context, _ members.Mapping, obj *unstructured.Unstructured, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	return obj.DeepCopy(), nil
}

func (r readOnlyClient) MergePatch(ctx context.Context, m members.Mapping, namespace, name string, _ []byte, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	return r.Get(ctx, m, namespace, name)
}

func (readOnlyClient) Delete(context.Context, members.Mapping, string, string, metav1.DeleteOptions) error {
	return nil
}
