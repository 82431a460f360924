package cmdutil

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
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

// DNSClient is the client of the DNS cluster: a member by name, else a
// kubeconfig context of that name.
func DNSClient(fed *members.Federation, access members.Access, newClient func(members.Access, members.Member) (members.Client, error), cluster string) (members.Client, error) {
	m, ok := fed.Member(cluster)
	if !ok {
		m = members.Member{Name: cluster, Context: cluster}
	}
	return newClient(access, m)
}

// DNSInput are what a DNS computation needs besides the members' reads.
type DNSInput struct {
	Rendered    *Rendered
	Clients     func(string) (members.Client, error)
	DNSClient   members.Client // nil: no previous targets are read
	DNSCluster  string
	Concurrency int
	Timeout     time.Duration
}

// compute reads the members (in parallel, read-only) and the
// DNSEndpoints written before, and computes the records.
func (f *DNSFlags) compute(ctx context.Context, in DNSInput) (*dns.Result, error) {
	r := in.Rendered
	input := dns.Input{DNS: r.Set.DNS, Members: r.Federation.Names(), Weights: f.Weights == federation.WeightingReplicas,
		WeightKey: f.WeightKey, WithdrawUnreachable: f.WithdrawUnreachable}
	placedIn := map[*federation.Object][]string{}
	for _, p := range r.Result.Placed {
		placedIn[p.Object] = p.Clusters
	}
	replicas := func(o *federation.Object) map[string]int64 {
		out := map[string]int64{}
		for _, t := range r.Result.Targets {
			if t.Source != o {
				continue
			}
			if spec, ok := t.Object["spec"].(map[string]any); ok {
				n, _ := spec["replicas"].(int64)
				out[t.Cluster] = n
			}
		}
		return out
	}
	if err := dns.FromRender(&input, r.Set, placedIn, replicas); err != nil {
		return nil, err
	}
	input.States = dnssync.Read(ctx, dnssync.Input{DNS: r.Set.DNS, Members: r.Federation.Clusters, Clients: in.Clients, Concurrency: in.Concurrency, Timeout: in.Timeout})
	if in.DNSClient != nil {
		prev, err := dnssync.Previous(ctx, in.DNSClient, in.DNSCluster, r.Set.DNS)
		if err != nil {
			return nil, fmt.Errorf("cluster %s (DNS): %w", in.DNSCluster, err)
		}
		input.Previous = prev
	}
	return dns.Endpoints(input)
}

// ComputeDNS reads the members and the DNS cluster (when one is named) and
// computes the records, printing their warnings on stderr.
func ComputeDNS(ctx context.Context, ios *iostreams.IOStreams, r *Rendered, flags DNSFlags, accessOf func() (members.Access, error),
	newClient func(members.Access, members.Member) (members.Client, error), timeout time.Duration) (*dns.Result, error) {
	access, err := accessOf()
	if err != nil {
		return nil, err
	}
	access.Timeout = timeout
	cluster, err := flags.DNSCluster(r.Set)
	if err != nil {
		return nil, err
	}
	in := DNSInput{Rendered: r, Clients: members.Clients(r.Federation, access, newClient), DNSCluster: cluster, Timeout: timeout}
	if cluster != "" {
		if in.DNSClient, err = DNSClient(r.Federation, access, newClient, cluster); err != nil {
			return nil, fmt.Errorf("cluster %s (DNS): %w", cluster, err)
		}
	}
	res, err := flags.compute(ctx, in)
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(ios.ErrOut, "Warning: %s\n", w)
	}
	for _, rec := range res.Records {
		for _, m := range rec.Members {
			if strings.HasPrefix(m.Why, "could not be read") {
				fmt.Fprintf(ios.ErrOut, "Warning: %s %s/%s: member %s %s\n", rec.Kind+"DNSRecord", rec.Namespace, rec.Name, m.Member, m.Why)
			}
		}
	}
	return res, nil
}
