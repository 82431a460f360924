package cmdutil

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// DNSFlags shape multi-cluster DNS (fedctl dns, and apply with DNS records
// in the input).
type DNSFlags struct {
	// Weights "replicas" weighs every Service record by the replica split.
	Weights string
	// WeightKey is the providerSpecific name of a weight.
	WeightKey string
	// Context is where ExternalDNS runs (a member or a kubeconfig
	// context); it overrides the Domains' spec.context.
	Context string
	// WithdrawUnreachable drops the targets of members that cannot be read.
	WithdrawUnreachable bool
}

// AddDNSFlags adds --dns-weights, --dns-weight-key, --dns-context and
// --dns-withdraw-unreachable.
func AddDNSFlags(cmd *cobra.Command, f *DNSFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.Weights, "dns-weights", "", "replicas: weigh every ServiceDNSRecord's members by their replicas of the Deployment the Service selects (as spec.weighting: replicas does for one)")
	fl.StringVar(&f.WeightKey, "dns-weight-key", dns.DefaultWeightKey, "The providerSpecific name ExternalDNS's provider reads a weight from")
	fl.StringVar(&f.Context, "dns-context", "", "The member or kubeconfig context where ExternalDNS runs, for the DNSEndpoints (default: the Domain's spec.context)")
	fl.BoolVar(&f.WithdrawUnreachable, "dns-withdraw-unreachable", false, "Withdraw the DNS targets of members that cannot be read, instead of keeping those of the last apply")
}

// Validate checks the flags alone.
func (f *DNSFlags) Validate() error {
	if f.Weights != "" && f.Weights != federation.WeightingReplicas {
		return fmt.Errorf("--dns-weights must be %q, got %q", federation.WeightingReplicas, f.Weights)
	}
	return nil
}

// DNSCluster is where the DNSEndpoints go: --dns-context, else the one
// context the Domains name; "" when neither says.
func (f *DNSFlags) DNSCluster(set *federation.Set) (string, error) {
	if f.Context != "" {
		return f.Context, nil
	}
	cluster := ""
	for _, d := range set.DNS.Domains {
		c := d.Spec.Context
		if c == "" {
			continue
		}
		if cluster != "" && c != cluster {
			return "", d.Errorf("spec.context", "is %s where another Domain says %s: fedctl writes every DNSEndpoint to one cluster; give --dns-context", c, cluster)
		}
		cluster = c
	}
	return cluster, nil
}

// DNSDryRun is how the DNS step writes and deletes under --dry-run
// (none, client or server), and the suffix of its messages, kubectl's:
// " (dry run)" or " (server dry run)".
func DNSDryRun(dryRun string) (dnssync.DryRun, string) {
	switch dryRun {
	case DryRunClient:
		return dnssync.ClientDryRun, " (dry run)"
	case DryRunServer:
		return dnssync.ServerDryRun, " (server dry run)"
	}
	return dnssync.NoDryRun, ""
}

// DNSTarget is the cluster where ExternalDNS reads the DNSEndpoints, and
// its client.
type DNSTarget struct {
	Cluster string
	Client  members.Client
	// Written are the records' DNSEndpoints there, as ComputeDNS found
	// them, for dnssync.Write to leave alone those already up to date.
	Written dnssync.Written
}

// OpenDNS opens the DNS cluster (see DNSCluster): a member by name, else a
// kubeconfig context of that name; nil when cluster is "".
func OpenDNS(fed *members.Federation, cluster string, access members.Access, newClient func(members.Access, members.Member) (members.Client, error)) (*DNSTarget, error) {
	if cluster == "" {
		return nil, nil
	}
	m, ok := fed.Member(cluster)
	if !ok {
		m = members.Member{Name: cluster, Context: cluster}
	}
	client, err := newClient(access, m)
	if err != nil {
		return nil, fmt.Errorf("cluster %s (DNS): %w", cluster, err)
	}
	return &DNSTarget{Cluster: cluster, Client: client}, nil
}

// DNSOpener opens DNS clusters (OpenDNS) of fed with a command's access,
// its time flags applied.
func DNSOpener(fed *members.Federation, access func() (members.Access, error), times MemberTimeFlags, newClient func(members.Access, members.Member) (members.Client, error)) func(string) (*DNSTarget, error) {
	return func(cluster string) (*DNSTarget, error) {
		a, err := access()
		if err != nil {
			return nil, err
		}
		times.Apply(&a)
		return OpenDNS(fed, cluster, a, newClient)
	}
}

// ComputeDNS reads the members through clients (in parallel, read-only,
// each bounded by timeout) and, when target is set, the DNSEndpoints
// written there before; it computes the records and prints their warnings
// and the members that could not be read on stderr.
func (f *DNSFlags) ComputeDNS(ctx context.Context, ios *iostreams.IOStreams, r *Rendered, clients func(string) (members.Client, error), target *DNSTarget, timeout time.Duration) (*dns.Result, error) {
	input := dns.Input{DNS: r.Set.DNS, Members: r.Federation.Names(), Weights: f.Weights == federation.WeightingReplicas,
		WeightKey: f.WeightKey, WithdrawUnreachable: f.WithdrawUnreachable}
	placedIn := map[*federation.Object][]string{}
	for _, p := range r.Result.Placed {
		placedIn[p.Object] = p.Clusters
	}
	byObject := r.Result.Replicas()
	replicas := func(o *federation.Object) map[string]int64 { return byObject[o.ID()] }
	if err := dns.FromRender(&input, r.Set, placedIn, replicas); err != nil {
		return nil, err
	}
	input.States = dnssync.Read(ctx, dnssync.Input{DNS: r.Set.DNS, Members: r.Federation.Clusters, Clients: clients, Timeout: timeout})
	if target != nil {
		pctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, propagate.DefaultTimeout)) // a DNS cluster that answers 503 is retried within it
		prev, err := dnssync.Previous(pctx, target.Client, target.Cluster, r.Set.DNS)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("cluster %s (DNS): reading the DNSEndpoints written before: %w; nothing was written there", target.Cluster, err)
		}
		target.Written, input.Previous = prev, prev.Targets()
	}
	res, err := dns.Endpoints(input)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(ios.ErrOut, "Warning: %s\n", w)
	}
	for _, rec := range res.Records {
		for _, m := range rec.Members {
			if slices.Contains(res.Unreachable, m.Member) {
				fmt.Fprintf(ios.ErrOut, "Warning: %sDNSRecord %s/%s: member %s %s\n", rec.Kind, rec.Namespace, rec.Name, m.Member, m.Why)
			}
		}
	}
	return res, nil
}

// DNSClusters are where apply (and diff) writes and prunes DNSEndpoints.
type DNSClusters struct {
	// Cluster is where the input's records go and, with --prune, where
	// the set's DNSEndpoints whose records left the input are pruned: the
	// one the input or --dns-context names (DNSCluster); "" when none does.
	Cluster string
	// Stale are the other clusters where the set still has DNSEndpoints,
	// as its parents recorded (the input's Domain went, or moved): with
	// --prune they are pruned there whole.
	Stale []string
	// Unchecked are the recorded clusters that could not be opened or
	// listed, with why (the error names the cluster): they stay recorded,
	// and nothing is pruned there in this run.
	Unchecked map[string]error
}

// Names are the clusters, sorted.
func (d DNSClusters) Names() []string {
	names := append(slices.Collect(maps.Keys(d.Unchecked)), d.Stale...)
	if d.Cluster != "" {
		names = append(names, d.Cluster)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Empty says there is nowhere to write or prune.
func (d DNSClusters) Empty() bool {
	return d.Cluster == "" && len(d.Stale) == 0 && len(d.Unchecked) == 0
}

// SetDNSContext decides where apply --prune (and diff --prune) of set
// writes and prunes the set's DNSEndpoints, and says on set what its
// parents are to record (DNSContexts, ForgetDNSContexts), once the set's
// namespace is known and before any parent is written: named, the cluster
// the input or --dns-context names, if any, is recorded; of the clusters
// the parents recorded at earlier applies (read in clusters: a rollout's
// first wave alone, as later waves get no request before their turn), each
// other one where the set still has DNSEndpoints is stale, pruned whole and
// still recorded, and each where it has none any more is forgotten. So the
// set's DNSEndpoints are pruned once the input drops its Domain with its
// records, or moves it to another cluster.
func SetDNSContext(ctx context.Context, errOut io.Writer, cs *iostreams.ColorScheme, set *propagate.ApplySet, named string, clusters []string, clients func(string) (members.Client, error), open func(string) (*DNSTarget, error), timeout time.Duration) (DNSClusters, error) {
	out := DNSClusters{Cluster: named}
	if named != "" {
		set.DNSContexts = []string{named}
	}
	found, unread := propagate.RecordedDNSContexts(ctx, *set, clusters, clients, min(cmp.Or(timeout, propagate.DefaultTimeout), ApplySetLookupTimeout))
	if err := ctx.Err(); err != nil {
		return out, err
	}
	for _, c := range slices.Sorted(maps.Keys(unread)) {
		// what that parent records stays recorded (see
		// propagate.ApplySet.DNSContexts); propagate reads it again
		fmt.Fprintf(errOut, "%s DNS: the parent of %s in cluster %s could not be read (%v): the DNS clusters it records are not checked in this run\n", cs.WarningIcon(), set.Ref(), c, unread[c])
	}
	var spare map[types.UID]bool // the named cluster's, which a recorded one may be under another name
	var spareErr error
	if named != "" && len(found) > 0 {
		spare, spareErr = setUIDsIn(ctx, open, named, set, timeout)
	}
	for _, recorded := range slices.Sorted(maps.Keys(found)) {
		if recorded == named {
			continue
		}
		left, err := 0, fmt.Errorf("cannot tell its DNSEndpoints from those of cluster %s: %w", named, spareErr)
		if spareErr == nil {
			left, err = setEndpointsIn(ctx, open, recorded, set, spare, timeout)
		}
		switch {
		case err != nil:
			if out.Unchecked == nil {
				out.Unchecked = map[string]error{}
			}
			out.Unchecked[recorded] = fmt.Errorf("cluster %s (DNS, recorded on the parents of %s in %s): %w; the set's DNSEndpoints there are not pruned in this run", recorded, set.Ref(), strings.Join(found[recorded], ", "), err)
		case left == 0:
			set.ForgetDNSContexts = append(set.ForgetDNSContexts, recorded)
		default:
			out.Stale = append(out.Stale, recorded)
			fmt.Fprintf(errOut, "%s DNS: %s still has %d DNSEndpoints in cluster %s (recorded on its parents), which the input no longer names\n", cs.WarningIcon(), set.Ref(), left, recorded)
		}
	}
	return out, nil
}

// setUIDsIn are the UIDs of the DNSEndpoints of set in cluster.
func setUIDsIn(ctx context.Context, open func(string) (*DNSTarget, error), cluster string, set *propagate.ApplySet, timeout time.Duration) (map[types.UID]bool, error) {
	target, err := open(cluster)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, propagate.DefaultTimeout))
	defer cancel()
	return dnssync.SetUIDs(ctx, target.Client, cluster, set.ID())
}

// setEndpointsIn counts the DNSEndpoints of set in cluster that are
// fedctl's to prune, but spare; a cluster that does not serve
// DNSEndpoints has none.
func setEndpointsIn(ctx context.Context, open func(string) (*DNSTarget, error), cluster string, set *propagate.ApplySet, spare map[types.UID]bool, timeout time.Duration) (int, error) {
	target, err := open(cluster)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, propagate.DefaultTimeout))
	defer cancel()
	there, err := dnssync.Prune(ctx, target.Client, cluster, set.ID(), nil, dnssync.PruneOptions{DryRun: dnssync.ClientDryRun, Spare: spare})
	var notServed *dnssync.NotServedError
	if errors.As(err, &notServed) {
		return 0, nil
	}
	return len(dnssync.Deleted(there)), err
}
