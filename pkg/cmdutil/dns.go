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

// SetDNSContext decides where apply --prune (and diff --prune) of set
// finds the set's DNSEndpoints, and records it on set (DNSContext, which
// the parents get), once the set's namespace is known and before any
// parent is written:
//   - named, the DNS cluster the input or --dns-context names, when there
//     is one;
//   - else the one the set's parents recorded at an earlier apply, while
//     the set still has DNSEndpoints there: so that they are pruned once
//     the input drops its Domain with its records, and the parents forget
//     the cluster once they are gone.
//
// Parents that name two clusters are an error, before any write. A
// recorded cluster that cannot be opened or listed is kept on the parents
// and said on errOut; nothing is pruned there in this run.
//
// The parents are read in clusters (a rollout's first wave: later waves
// get no request before their turn).
func SetDNSContext(ctx context.Context, errOut io.Writer, cs *iostreams.ColorScheme, set *propagate.ApplySet, named string, clusters []string, clients func(string) (members.Client, error), open func(string) (*DNSTarget, error), timeout time.Duration) (string, error) {
	if named != "" {
		set.DNSContext = named
		return named, nil
	}
	found, _ := propagate.RecordedDNSContexts(ctx, *set, clusters, clients, min(cmp.Or(timeout, propagate.DefaultTimeout), ApplySetLookupTimeout))
	// a member whose parent could not be read fails in propagate, which
	// reads it again; the others say where the DNSEndpoints are
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var recorded string
	switch names := slices.Sorted(maps.Keys(found)); len(names) {
	case 0:
		return "", nil
	case 1:
		recorded = names[0]
	default:
		var parts []string
		for _, c := range names {
			parts = append(parts, fmt.Sprintf("%s (parents in %s)", c, strings.Join(found[c], ", ")))
		}
		return "", fmt.Errorf("the parents of %s record the set's DNSEndpoints in several clusters: %s; pass --dns-context CLUSTER to prune them there", set.Ref(), strings.Join(parts, ", "))
	}
	set.DNSContext = recorded // kept unless the set is known to have none left there
	target, err := open(recorded)
	if err == nil {
		lctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, propagate.DefaultTimeout))
		var there []dnssync.Removal
		there, err = dnssync.Prune(lctx, target.Client, recorded, set.ID(), nil, dnssync.PruneOptions{DryRun: dnssync.ClientDryRun})
		cancel()
		var notServed *dnssync.NotServedError
		switch {
		case errors.As(err, &notServed), err == nil && len(dnssync.Deleted(there)) == 0:
			set.DNSContext = "" // nothing of the set's is there: forget the cluster
			return "", nil
		case err == nil:
			fmt.Fprintf(errOut, "%s DNS: the input names no DNS cluster; the DNSEndpoints of %s are in cluster %s, as its parent recorded at the last apply --prune\n", cs.WarningIcon(), set.Ref(), recorded)
			return recorded, nil
		}
	}
	fmt.Fprintf(errOut, "%s DNS: the DNSEndpoints of %s in cluster %s (recorded on its parent) are not pruned: %v\n", cs.WarningIcon(), set.Ref(), recorded, err)
	return "", nil
}
