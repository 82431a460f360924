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
	"sync"
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
	// Forget are DNS clusters the ApplySet's parents are to stop recording,
	// unchecked (--dns-forget; apply and diff with --prune).
	Forget []string
	// Withdrawn are members whose targets the records leave out whatever
	// they hold: a delete --rollout's waves, withdrawn before they are
	// deleted. Not a flag.
	Withdrawn []string
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

// AddDNSForgetFlag adds --dns-forget, for the commands that prune.
func AddDNSForgetFlag(cmd *cobra.Command, f *DNSFlags) {
	cmd.Flags().StringSliceVar(&f.Forget, "dns-forget", nil, "With --prune: stop recording this DNS cluster on the ApplySet's parents without pruning there, for a context that is gone for good (repeatable)")
}

// Validate checks the DNS flags of a run that prunes (prune) and is
// limited to some members (clusters, --cluster): such a run leaves the DNS
// step out, so --dns-forget would do nothing.
func (f *DNSFlags) Validate(prune bool, clusters []string) error {
	var errs []error
	if f.Weights != "" && f.Weights != federation.WeightingReplicas {
		errs = append(errs, fmt.Errorf("--dns-weights must be %q, got %q", federation.WeightingReplicas, f.Weights))
	}
	if len(f.Forget) > 0 && !prune {
		errs = append(errs, errors.New("--dns-forget needs --prune: it changes what the ApplySet's parents record"))
	}
	if len(f.Forget) > 0 && len(clusters) > 0 {
		errs = append(errs, errors.New("--dns-forget cannot be used with --cluster: a run on some members leaves the DNS records, and the DNS clusters the ApplySet's parents record, as they are"))
	}
	if f.Context != "" && slices.Contains(f.Forget, f.Context) {
		errs = append(errs, fmt.Errorf("--dns-forget %s: it is the cluster --dns-context names, where the records go", f.Context))
	}
	return errors.Join(errs...)
}

// ErrNoDNSCluster is the error for DNS records with nowhere to go.
var ErrNoDNSCluster = errors.New("the input has DNS records, and nothing says where ExternalDNS runs: set spec.context on the Domain, or pass --dns-context (a member or a kubeconfig context)")

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

// OpenDNS opens the DNS cluster (see DNSCluster): a member by name, with
// the run's client of it, else a kubeconfig context of that name; nil when
// cluster is "". Each request to it ends at its context's deadline
// (members.Bounded).
func OpenDNS(fed *members.Federation, cluster string, clients *MemberClients) (*DNSTarget, error) {
	if cluster == "" {
		return nil, nil
	}
	var client members.Client
	var err error
	if _, ok := fed.Member(cluster); ok {
		var of func(string) (members.Client, error)
		if of, err = clients.Of(fed); err == nil {
			client, err = of(cluster)
		}
	} else {
		client, err = clients.Open(members.Member{Name: cluster, Context: cluster})
	}
	if err != nil {
		return nil, fmt.Errorf("cluster %s (DNS): %w", cluster, err)
	}
	// The DNS cluster is reached outside the per-member loops, which
	// bound a member's work whatever it waits on: its requests are
	// bounded one by one instead (a hanging exec credential plugin).
	return &DNSTarget{Cluster: cluster, Client: members.Bounded(client)}, nil
}

// DNS opens the DNS clusters of fed (OpenDNS) with the run's clients,
// each once a run: the check of the recorded clusters, the write and the
// stale records' removal share one target per cluster. The same opener at
// every call with the same federation.
func (c *MemberClients) DNS(fed *members.Federation) func(string) (*DNSTarget, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if open, ok := c.dns[fed]; ok {
		return open
	}
	var mu sync.Mutex
	opened := map[string]*DNSTarget{}
	open := func(cluster string) (*DNSTarget, error) {
		mu.Lock()
		defer mu.Unlock()
		if t, ok := opened[cluster]; ok {
			return t, nil
		}
		t, err := OpenDNS(fed, cluster, c)
		if err == nil {
			opened[cluster] = t
		}
		return t, err
	}
	c.dns[fed] = open
	return open
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
		if len(f.Withdrawn) > 0 {
			placedIn[p.Object] = slices.DeleteFunc(slices.Clone(p.Clusters), func(c string) bool { return slices.Contains(f.Withdrawn, c) })
		}
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

	// spare are the UIDs of the set's DNSEndpoints in Cluster, read once
	// (see Check); spareRead says they were. A failed read is tried again
	// at the next wave: one transient failure must not leave every later
	// wave's recorded clusters unchecked.
	spare     map[types.UID]bool
	spareRead bool
	// read are the members whose parents Check has read.
	read map[string]bool
	// forgetChecked are the --dns-forget clusters Check looked into.
	forgetChecked map[string]bool
}

// Empty says there is nowhere to write or prune.
func (d *DNSClusters) Empty() bool {
	return d.Cluster == "" && len(d.Stale) == 0 && len(d.Unchecked) == 0
}

// DNSCheck is what DNSClusters.Check needs.
type DNSCheck struct {
	ErrOut      io.Writer
	ColorScheme *iostreams.ColorScheme
	// Set is the ApplySet of apply --prune (or diff --prune); Check says
	// on it what its parents are to record.
	Set *propagate.ApplySet
	// Clients reach the members; Open opens a DNS cluster.
	Clients func(string) (members.Client, error)
	Open    func(string) (*DNSTarget, error)
	// Forget are clusters the parents are to stop recording unchecked
	// (--dns-forget: a context that is gone for good).
	Forget  []string
	Timeout time.Duration
}

// Check decides, for the parents of c.Set in clusters, where apply --prune
// (and diff --prune) writes and prunes the set's DNSEndpoints, and says on
// the set what the parents are to record (DNSContexts, ForgetDNSContexts).
// It runs once the set's namespace is known and before any of those
// parents is written: for a rollout, once per wave at its turn, as later
// waves get no request before then. d.Cluster, the cluster the input or
// --dns-context names, if any, is opened first (a context that does not
// exist stops the run before any write) and recorded; of the clusters the
// parents recorded at earlier applies, each other one where the set still
// has DNSEndpoints is stale, pruned whole and still recorded, and each
// where it has none any more, or that --dns-forget names, is forgotten. So
// the set's DNSEndpoints are pruned once the input drops its Domain with
// its records, or moves it to another cluster. A cluster decided by an
// earlier call is not checked again.
func (d *DNSClusters) Check(ctx context.Context, c DNSCheck, clusters []string) error {
	set := c.Set
	if d.Cluster != "" && slices.Contains(c.Forget, d.Cluster) {
		return FlagErrorf("--dns-forget %s: it is the DNS cluster the input's Domain names, where the records are written; drop it from --dns-forget", d.Cluster)
	}
	if d.Cluster != "" && len(set.DNSContexts) == 0 {
		if _, err := c.Open(d.Cluster); err != nil {
			return err
		}
		set.DNSContexts = []string{d.Cluster}
	}
	set.ForgetDNSContexts = appendNew(set.ForgetDNSContexts, c.Forget...)
	clusters = slices.DeleteFunc(slices.Clone(clusters), func(m string) bool { return d.read[m] })
	if d.read == nil {
		d.read = map[string]bool{}
	}
	for _, m := range clusters {
		d.read[m] = true
	}
	found, unread := propagate.RecordedDNSContexts(ctx, *set, clusters, c.Clients, min(cmp.Or(c.Timeout, propagate.DefaultTimeout), ApplySetLookupTimeout))
	if err := ctx.Err(); err != nil {
		return err
	}
	for _, m := range slices.Sorted(maps.Keys(unread)) {
		// what that parent records stays recorded (see
		// propagate.ApplySet.DNSContexts); propagate reads it again
		fmt.Fprintf(c.ErrOut, "%s DNS: the parent of %s in cluster %s could not be read (%v): the DNS clusters it records are not checked in this run\n", c.ColorScheme.WarningIcon(), set.Ref(), m, unread[m])
	}
	for _, recorded := range slices.Sorted(maps.Keys(found)) {
		if slices.Contains(c.Forget, recorded) && !d.forgetChecked[recorded] {
			// forgotten on purpose, for a context gone for good: one that
			// answers and still holds the set's DNSEndpoints leaves them
			// behind, unpruned and no longer recorded
			if d.forgetChecked == nil {
				d.forgetChecked = map[string]bool{}
			}
			d.forgetChecked[recorded] = true
			if left, err := d.endpointsLeftIn(ctx, c, recorded); err == nil && left > 0 {
				fmt.Fprintf(c.ErrOut, "%s DNS: --dns-forget %s: the cluster answers and still holds %d of the DNSEndpoints of %s, which are now neither pruned nor recorded; delete them there, or drop --dns-forget to prune them\n", c.ColorScheme.WarningIcon(), recorded, left, set.Ref())
			}
		}
		if recorded == d.Cluster || slices.Contains(set.ForgetDNSContexts, recorded) || slices.Contains(d.Stale, recorded) || d.Unchecked[recorded] != nil {
			continue // named, forgotten or decided already
		}
		left, err := d.endpointsLeftIn(ctx, c, recorded)
		switch {
		case err != nil:
			if d.Unchecked == nil {
				d.Unchecked = map[string]error{}
			}
			d.Unchecked[recorded] = fmt.Errorf("%w (recorded on the parents of %s in %s); the set's DNSEndpoints there are not pruned in this run (--dns-forget %s stops recording it)",
				err, set.Ref(), strings.Join(found[recorded], ", "), recorded)
		case left == 0:
			set.ForgetDNSContexts = append(set.ForgetDNSContexts, recorded)
		default:
			d.Stale = append(d.Stale, recorded)
			fmt.Fprintf(c.ErrOut, "%s DNS: %s still has %d DNSEndpoints in cluster %s (recorded on its parents), which the input no longer names\n", c.ColorScheme.WarningIcon(), set.Ref(), left, recorded)
		}
	}
	return nil
}

// endpointsLeftIn counts the set's DNSEndpoints in cluster that are
// fedctl's to prune, but those d.Cluster holds too (the same cluster under
// another name: a renamed kubeconfig context).
func (d *DNSClusters) endpointsLeftIn(ctx context.Context, c DNSCheck, cluster string) (int, error) {
	if d.Cluster != "" && !d.spareRead {
		spare, err := setUIDsIn(ctx, c.Open, d.Cluster, c.Set, c.Timeout)
		if err != nil {
			return 0, fmt.Errorf("cluster %s (DNS): cannot tell its DNSEndpoints from those of cluster %s: %w", cluster, d.Cluster, err)
		}
		d.spare, d.spareRead = spare, true
	}
	return setEndpointsIn(ctx, c.Open, cluster, c.Set, d.spare, c.Timeout)
}

// appendNew appends to list the values it does not hold yet.
func appendNew(list []string, values ...string) []string {
	for _, v := range values {
		if !slices.Contains(list, v) {
			list = append(list, v)
		}
	}
	return list
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
// fedctl's to prune, but spare (none where DNSEndpoints are not served).
func setEndpointsIn(ctx context.Context, open func(string) (*DNSTarget, error), cluster string, set *propagate.ApplySet, spare map[types.UID]bool, timeout time.Duration) (int, error) {
	target, err := open(cluster)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(timeout, propagate.DefaultTimeout))
	defer cancel()
	there, err := dnssync.Prune(ctx, target.Client, cluster, set.ID(), nil, dnssync.PruneOptions{DryRun: dnssync.ClientDryRun, Spare: spare})
	if err != nil {
		return 0, fmt.Errorf("cluster %s (DNS): %w", cluster, err)
	}
	return len(dnssync.Deleted(there)), nil
}

// PlacedNamespaces are the Namespaces the run places in cluster (none when
// it is no member).
func PlacedNamespaces(in *Rendered, cluster string) map[string]bool {
	out := map[string]bool{}
	for _, t := range in.Result.Targets {
		if t.Cluster == cluster && t.Type.Group == "" && t.Type.Kind == "Namespace" {
			out[t.Name()] = true
		}
	}
	return out
}
