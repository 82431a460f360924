package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// dnsCluster is where the input's DNS records go, and where --prune
// prunes those of the set that left it; an input with records and nowhere
// to write them, or a DNS cluster that cannot be opened, is an error before
// any write.
func (o *ApplyOptions) dnsCluster(in *cmdutil.Rendered, set *propagate.ApplySet) (string, error) {
	records := in.Set.DNS.Records()
	if !records && set == nil {
		return "", nil
	}
	if len(o.Clusters) > 0 {
		// The render knows the replica plans of the members applied to
		// only: weights would be 0 everywhere else, and the records'
		// targets are every member's. As fedctl delete --cluster does.
		// Nor is any DNS cluster pruned: the parents of some members
		// cannot say which the set no longer uses (Check is not run).
		if records {
			fmt.Fprintf(o.IO.ErrOut, "%s DNS records: not written, as --cluster applies to some members only and the records are every member's; the next apply without --cluster writes them\n", o.IO.ErrColorScheme().WarningIcon())
		}
		return "", nil
	}
	cluster, err := o.DNS.DNSCluster(in.Set)
	switch {
	case err != nil:
		return "", err
	case cluster == "" && records:
		return "", cmdutil.ErrNoDNSCluster
	case cluster != "":
		// a context that does not exist is a mistake to report before
		// the members get anything (no request is sent here)
		if _, err := o.runClients().DNS(in.Federation)(cluster); err != nil {
			return "", err
		}
	}
	return cluster, nil
}

// writeDNS computes the DNSEndpoints of the input's DNS records from the
// members and server-side applies those that changed in the DNS cluster.
// A member that could not be read keeps its last targets (unless
// --dns-withdraw-unreachable) and makes the run partial (exit 3). With
// --prune (set), the DNSEndpoints are labelled with the set, those of the
// set whose records left the input are deleted, within --max-deletions,
// and so are all of the set's in the stale clusters its parents recorded
// (cmdutil.DNSClusters.Check); a recorded cluster that could not be checked
// makes the run partial. A dry run says what it would write and delete:
// client reads and sends nothing, server sends dry-run requests.
//
// The members are read through clients, the apply's own, so that what
// they learnt (discovery, who does not answer) is not asked again; nil
// clients (--dry-run=client without --prune) read no cluster, so neither
// does the DNS step.
func (o *ApplyOptions) writeDNS(ctx context.Context, in *cmdutil.Rendered, where cmdutil.DNSClusters, set *propagate.ApplySet, clients func(string) (members.Client, error)) error {
	if where.Empty() || ctx.Err() != nil {
		return nil
	}
	cs := o.IO.ErrColorScheme()
	if clients == nil {
		fmt.Fprintf(o.IO.ErrOut, "%s DNS records: not computed, as --dry-run=client without --prune reads no cluster; fedctl dns -f ... shows them\n", cs.WarningIcon())
		return nil
	}
	var recordsErr error
	if where.Cluster != "" {
		recordsErr = o.writeRecords(ctx, in, where.Cluster, set, clients)
	}
	errs := []error{recordsErr}
	switch {
	case len(where.Stale) == 0:
	case recordsErr != nil:
		// The stale clusters' DNSEndpoints serve the names until the new
		// ones are all written, each member's targets read: never withdraw
		// a region on a failed write or read.
		errs = append(errs, fmt.Errorf("DNS: the set's DNSEndpoints in %s are not pruned, as cluster %s was not fully written", strings.Join(where.Stale, ", "), where.Cluster))
	default:
		errs = append(errs, o.pruneStale(ctx, in, where, set))
	}
	if len(where.Unchecked) > 0 {
		failed := slices.Sorted(maps.Keys(where.Unchecked))
		for _, c := range failed {
			errs = append(errs, where.Unchecked[c])
		}
		errs = append(errs, &cmdutil.PartialError{Failed: failed})
	}
	return errors.Join(errs...)
}

// pruneStale prunes the set's DNSEndpoints, all of them, in the stale
// clusters its parents recorded, sparing those the cluster the input names
// holds: a stale cluster may be that very cluster under another name (a
// renamed kubeconfig context), and the DNSEndpoints just written there must
// stay. When they cannot be listed, no stale cluster is pruned.
func (o *ApplyOptions) pruneStale(ctx context.Context, in *cmdutil.Rendered, where cmdutil.DNSClusters, set *propagate.ApplySet) error {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	var spare map[types.UID]bool
	if where.Cluster != "" {
		target, err := o.runClients().DNS(in.Federation)(where.Cluster)
		if err == nil {
			spare, err = dnssync.SetUIDs(ctx, target.Client, where.Cluster, set.ID())
		}
		if err != nil {
			return fmt.Errorf("DNS: the set's DNSEndpoints in %s (which the input no longer names) are not pruned, as those of cluster %s could not be listed: %w", strings.Join(where.Stale, ", "), where.Cluster, err)
		}
	}
	var errs []error
	for _, stale := range where.Stale {
		target, err := o.runClients().DNS(in.Federation)(stale)
		if err == nil {
			err = o.pruneDNS(ctx, target, set, nil, spare, "the input no longer names cluster "+stale)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("DNS: %w", err))
		}
	}
	return errors.Join(errs...)
}

// writeRecords writes the input's records to cluster and, with --prune,
// prunes there the set's DNSEndpoints whose records left the input.
func (o *ApplyOptions) writeRecords(ctx context.Context, in *cmdutil.Rendered, cluster string, set *propagate.ApplySet, clients func(string) (members.Client, error)) error {
	cs := o.IO.ErrColorScheme()
	target, err := o.runClients().DNS(in.Federation)(cluster)
	if err != nil {
		return err
	}
	res := &dns.Result{}
	if in.Set.DNS.Records() {
		if res, err = o.DNS.ComputeDNS(ctx, o.IO, in, clients, target, o.Timeout); err != nil {
			return fmt.Errorf("DNS records: %w", err)
		}
	}
	// bounded: a DNS cluster that answers 503 is retried within it, not
	// for as long as the command runs
	wctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	dry, suffix := cmdutil.DNSDryRun(o.DryRun)
	opts := dnssync.WriteOptions{FieldManager: o.FieldManager, DryRun: dry, PlacedNamespaces: cmdutil.PlacedNamespaces(in, cluster), Adopt: o.Adopt}
	if set != nil {
		opts.Set = set.ID()
	}
	if len(res.Records) > 0 {
		written, err := dnssync.Write(wctx, target.Client, cluster, res.Records, target.Written, opts)
		if err != nil {
			return fmt.Errorf("DNS records in cluster %s: %w", cluster, err)
		}
		n := 0
		for _, r := range res.Records {
			n += len(r.Endpoints)
		}
		what := fmt.Sprintf("in cluster %s: %d applied, %d unchanged", cluster, written.Applied, written.Unchanged)
		switch len(res.Records) {
		case written.Applied:
			what = "applied in cluster " + cluster
		case written.Unchanged:
			what = "unchanged in cluster " + cluster
		}
		fmt.Fprintf(o.IO.ErrOut, "%s DNS: %d DNSEndpoints (%d names) %s%s\n", cs.SuccessIcon(), len(res.Records), n, what, suffix)
	}
	if set != nil {
		if err := o.pruneDNS(wctx, target, set, res.Records, nil, "its record left the input"); err != nil {
			return fmt.Errorf("DNS: %w", err)
		}
	}
	if len(res.Unreachable) > 0 {
		return &cmdutil.PartialError{Failed: res.Unreachable}
	}
	return nil
}

// dnsCheck is what DNSClusters.Check needs, with the apply's settings.
func (o *ApplyOptions) dnsCheck(in *cmdutil.Rendered, set *propagate.ApplySet, clients func(string) (members.Client, error)) cmdutil.DNSCheck {
	return cmdutil.DNSCheck{ErrOut: o.IO.ErrOut, ColorScheme: o.IO.ErrColorScheme(), Set: set, Clients: clients, Open: o.runClients().DNS(in.Federation), Forget: o.DNS.Forget, Timeout: o.Timeout}
}

// pruneDNS deletes the DNSEndpoints of set whose records are not among
// keep, and says which it deleted and which it left, and why; more than
// --max-deletions of them are not deleted at all (but listed by a client
// dry run, which, as propagate's plan, is not bounded). A DNS cluster that
// does not serve DNSEndpoints holds none to prune.
func (o *ApplyOptions) pruneDNS(ctx context.Context, target *cmdutil.DNSTarget, set *propagate.ApplySet, keep []dns.Record, spare map[types.UID]bool, why string) error {
	dry, suffix := cmdutil.DNSDryRun(o.DryRun)
	opts := dnssync.PruneOptions{DryRun: dry, Spare: spare}
	if o.MaxDeletions >= 0 && dry != dnssync.ClientDryRun {
		opts.MaxDeletions = &o.MaxDeletions
	}
	removed, err := dnssync.Prune(ctx, target.Client, target.Cluster, set.ID(), keep, opts)
	var tooMany *dnssync.TooManyError
	if err != nil && !errors.As(err, &tooMany) {
		err = fmt.Errorf("cluster %s: %w", target.Cluster, err) // the others name it
	}
	cs := o.IO.ErrColorScheme()
	for _, r := range removed {
		if r.Left == "" {
			fmt.Fprintf(o.IO.ErrOut, "%s DNS: DNSEndpoint %s/%s deleted in cluster %s (pruned: %s)%s\n", cs.SuccessIcon(), r.Namespace, r.Name, target.Cluster, why, suffix)
		} else {
			fmt.Fprintf(o.IO.ErrOut, "%s DNS: DNSEndpoint %s/%s in cluster %s left in place: %s\n", cs.WarningIcon(), r.Namespace, r.Name, target.Cluster, r.Left)
		}
	}
	return err
}
