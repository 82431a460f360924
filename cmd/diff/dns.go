package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// compareDNS says what apply would change in the DNS clusters (see
// dnsClusters): the DNSEndpoints of the input's records that differ from
// the live ones (a server-side dry run each), and with --prune those of
// the set that apply would delete, there and in the stale clusters. They
// come as the comparisons of each DNS cluster, which go into the LIVE and
// MERGED trees beside the members' objects. A recorded cluster that could
// not be checked is an error, after the others are compared.
//
// The members are read through clients, the comparison's own. What
// could not be compared goes to problems.
func (o *DiffOptions) compareDNS(ctx context.Context, in *cmdutil.Rendered, where cmdutil.DNSClusters, set *propagate.ApplySet, clients func(string) (members.Client, error), problems *dnsProblems) []propagate.ClusterResult {
	var out []propagate.ClusterResult
	if where.Cluster != "" {
		res, err := o.compareRecords(ctx, in, where.Cluster, set, clients)
		if res != nil {
			out = append(out, *res)
		}
		problems.add(err, where.Cluster)
	}
	if len(where.Stale) > 0 {
		out = append(out, o.compareStale(ctx, in, where, set, problems)...)
	}
	for _, c := range slices.Sorted(maps.Keys(where.Unchecked)) {
		problems.add(where.Unchecked[c], c)
	}
	return out
}

// dnsProblems are what diff could not compare in the DNS clusters, and
// where: the clusters concerned, or none when no cluster could be decided.
type dnsProblems struct {
	errs     []error
	clusters []string
}

// add records err, if any, as a problem in clusters.
func (p *dnsProblems) add(err error, clusters ...string) {
	if err == nil {
		return
	}
	p.errs = append(p.errs, err)
	for _, c := range clusters {
		if !slices.Contains(p.clusters, c) {
			p.clusters = append(p.clusters, c)
		}
	}
}

// err joins the problems; nil when there are none.
func (p *dnsProblems) err() error { return errors.Join(p.errs...) }

// compareStale lists, as apply's pruneStale would delete them, the set's
// DNSEndpoints in the stale clusters, sparing those the cluster the input
// names holds (the same cluster under another name).
func (o *DiffOptions) compareStale(ctx context.Context, in *cmdutil.Rendered, where cmdutil.DNSClusters, set *propagate.ApplySet, problems *dnsProblems) []propagate.ClusterResult {
	var spare map[types.UID]bool
	if where.Cluster != "" {
		target, err := o.runClients().DNS(in.Federation)(where.Cluster)
		if err == nil {
			lctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
			spare, err = dnssync.SetUIDs(lctx, target.Client, where.Cluster, set.ID())
			cancel()
		}
		if err != nil {
			problems.add(fmt.Errorf("DNS: the set's DNSEndpoints in %s are not compared, as those of cluster %s could not be listed: %w", strings.Join(where.Stale, ", "), where.Cluster, err),
				append([]string{where.Cluster}, where.Stale...)...)
			return nil
		}
	}
	var out []propagate.ClusterResult
	for _, stale := range where.Stale {
		res := propagate.ClusterResult{Cluster: stale}
		target, err := o.runClients().DNS(in.Federation)(stale)
		if err == nil {
			res.Comparisons, err = o.comparePrune(ctx, target, set, nil, spare)
		}
		out = append(out, res)
		problems.add(err, stale)
	}
	return out
}

// compareRecords compares the input's records with their DNSEndpoints in
// cluster and, with --prune, lists the set's that apply would prune there.
func (o *DiffOptions) compareRecords(ctx context.Context, in *cmdutil.Rendered, cluster string, set *propagate.ApplySet, clients func(string) (members.Client, error)) (*propagate.ClusterResult, error) {
	target, err := o.runClients().DNS(in.Federation)(cluster)
	if err != nil {
		return nil, err
	}
	res := &dns.Result{}
	if in.Set.DNS.Records() {
		if res, err = o.DNS.ComputeDNS(ctx, o.IO, in, clients, target, o.Timeout); err != nil {
			return nil, fmt.Errorf("DNS records: %w", err)
		}
	}
	// bounded: a DNS cluster that answers 503 is retried within it
	dctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	opts := dnssync.WriteOptions{FieldManager: o.FieldManager, PlacedNamespaces: cmdutil.PlacedNamespaces(in, cluster), Adopt: o.Adopt}
	if set != nil {
		opts.Set = set.ID()
	}
	out := &propagate.ClusterResult{Cluster: cluster}
	var errs []error
	if len(res.Records) > 0 {
		compared, err := dnssync.Compare(dctx, target.Client, cluster, res.Records, target.Written, opts)
		if err != nil {
			errs = append(errs, fmt.Errorf("DNS records in cluster %s: %w", cluster, err))
		}
		for _, c := range compared {
			action := propagate.Configured
			if c.Live == nil {
				action = propagate.Created
			}
			out.Comparisons = append(out.Comparisons, propagate.Comparison{Object: endpointResult(c.Merged, action), Live: c.Live, Merged: c.Merged})
		}
	}
	if set != nil {
		deleted, err := o.comparePrune(dctx, target, set, res.Records, nil)
		out.Comparisons = append(out.Comparisons, deleted...)
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// comparePrune lists, as deletions, the DNSEndpoints of set in target that
// apply --prune would delete: those whose records are not among keep.
func (o *DiffOptions) comparePrune(ctx context.Context, target *cmdutil.DNSTarget, set *propagate.ApplySet, keep []dns.Record, spare map[types.UID]bool) ([]propagate.Comparison, error) {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	removed, err := dnssync.Prune(ctx, target.Client, target.Cluster, set.ID(), keep, dnssync.PruneOptions{DryRun: dnssync.ClientDryRun, Spare: spare})
	var out []propagate.Comparison
	for _, r := range removed {
		if r.Left == "" {
			out = append(out, propagate.Comparison{Object: endpointResult(r.Object, propagate.Deleted), Live: r.Object})
		}
	}
	if err != nil {
		return out, fmt.Errorf("DNS records in cluster %s: %w", target.Cluster, err)
	}
	return out, nil
}

// dnsClusters are where apply would write the input's DNS records and
// prune those of set, as apply decides them: the cluster the input or
// --dns-context names and, with --prune, the stale ones the set's parents
// recorded (cmdutil.DNSClusters.Check, which also says on set what the parents
// are to record, so that the parents' comparison shows what apply would
// write). Records with nowhere to go are a problem, as for apply.
func (o *DiffOptions) dnsClusters(ctx context.Context, in *cmdutil.Rendered, set *propagate.ApplySet, clients func(string) (members.Client, error), problems *dnsProblems) cmdutil.DNSClusters {
	records := in.Set.DNS.Records()
	if !records && set == nil || len(o.Clusters) > 0 {
		return cmdutil.DNSClusters{} // as apply --cluster, which writes no DNS
	}
	cluster, err := o.DNS.DNSCluster(in.Set)
	switch {
	case err != nil:
		problems.add(err)
		return cmdutil.DNSClusters{}
	case cluster == "" && records:
		problems.add(cmdutil.ErrNoDNSCluster)
		return cmdutil.DNSClusters{}
	case set == nil:
		return cmdutil.DNSClusters{Cluster: cluster}
	}
	where := cmdutil.DNSClusters{Cluster: cluster}
	// Check fails only on the named cluster (it cannot be opened): once
	// said, nothing more is compared there
	if err := where.Check(ctx, cmdutil.DNSCheck{ErrOut: o.IO.ErrOut, ColorScheme: o.IO.ErrColorScheme(), Set: set, Clients: clients, Open: o.runClients().DNS(in.Federation), Forget: o.DNS.Forget, Timeout: o.Timeout}, in.Clusters); err != nil {
		problems.add(err, cluster)
		return cmdutil.DNSClusters{}
	}
	return where
}

// endpointResult names a DNSEndpoint as propagate names member objects.
func endpointResult(obj *unstructured.Unstructured, action propagate.Action) propagate.ObjectResult {
	return propagate.ObjectResult{APIVersion: dnssync.EndpointGVK.GroupVersion().String(), Kind: dnssync.EndpointGVK.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), Action: action}
}
