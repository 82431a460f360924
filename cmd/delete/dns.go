package delete

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// dnsCluster is where the input's DNS records were written, opened, ""
// when the input has none or --cluster limits the deletion to some
// members (the records still serve the others; the next apply withdraws
// the targets of the members left). Records with nowhere to go, two
// Domains that disagree and a cluster that cannot be opened are errors
// before any deletion, as for apply: the DNSEndpoints go first.
func (o *DeleteOptions) dnsCluster(in *cmdutil.Rendered) (string, error) {
	if !in.Set.DNS.Records() {
		return "", nil
	}
	if len(o.Clusters) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "%s DNS records: kept, as --cluster deletes from some members only; the next apply withdraws their targets\n", o.IO.ErrColorScheme().WarningIcon())
		return "", nil
	}
	if o.KeepDNS {
		fmt.Fprintf(o.IO.ErrOut, "%s DNS records: their DNSEndpoints are left in place (--keep-dns); the names keep pointing at what is deleted until you delete them in the DNS cluster\n", o.IO.ErrColorScheme().WarningIcon())
		return "", nil
	}
	cluster, err := o.DNS.DNSCluster(in.Set)
	switch {
	case err != nil:
		return "", err
	case cluster == "":
		return "", fmt.Errorf("%w; nothing was deleted (--keep-dns deletes the members' objects and leaves the records)", cmdutil.ErrNoDNSCluster)
	}
	if _, err := o.runClients().DNS(in.Federation)(cluster); err != nil {
		return "", fmt.Errorf("%w; nothing was deleted (--keep-dns deletes the members' objects and leaves the records)", err)
	}
	return cluster, nil
}

// deleteDNS deletes, in the DNS cluster, the DNSEndpoints fedctl wrote for
// the input's DNS records (those it did not write are left, and said so),
// each with a UID precondition. --dry-run=client reads and lists them;
// --dry-run=server sends the deletions as a dry run.
func (o *DeleteOptions) deleteDNS(ctx context.Context, in *cmdutil.Rendered, cluster string) error {
	if cluster == "" || ctx.Err() != nil {
		return nil
	}
	target, err := o.runClients().DNS(in.Federation)(cluster)
	if err != nil {
		return err
	}
	// bounded: a DNS cluster that answers 503 is retried within it
	dctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	dry, suffix := cmdutil.DNSDryRun(o.DryRun)
	removed, err := dnssync.Delete(dctx, target.Client, cluster, in.Set.DNS, dry)
	cs := o.IO.ErrColorScheme()
	var notServed *dnssync.NotServedError
	if errors.As(err, &notServed) {
		// no DNSEndpoint can be there; said, as it may be the wrong cluster
		fmt.Fprintf(o.IO.ErrOut, "%s DNS: cluster %s does not serve DNSEndpoints, so none is there to delete (is it where ExternalDNS runs?)\n", cs.WarningIcon(), cluster)
		return nil
	}
	deleted := dnssync.Deleted(removed)
	for _, name := range deleted {
		fmt.Fprintf(o.IO.ErrOut, "%s DNS: DNSEndpoint %s deleted in cluster %s%s\n", cs.SuccessIcon(), name, cluster, suffix)
	}
	for _, r := range removed {
		if r.Left != "" {
			fmt.Fprintf(o.IO.ErrOut, "%s DNS: DNSEndpoint %s/%s in cluster %s left in place: %s\n", cs.WarningIcon(), r.Namespace, r.Name, cluster, r.Left)
		}
	}
	if err != nil {
		return fmt.Errorf("DNS records in cluster %s: %w", cluster, err)
	}
	return nil
}

// withdrawDNS writes the input's DNS records again without the targets of
// the members in gone: a delete --rollout withdraws each wave's load
// balancers from the names before it deletes them, as a plain delete
// deletes the DNSEndpoints first, so that no name points at a load
// balancer that is gone while the later waves still serve. The
// DNSEndpoints keep the ApplySet label an apply --prune gave them.
func (o *DeleteOptions) withdrawDNS(ctx context.Context, in *cmdutil.Rendered, cluster string, gone []string, clients func(string) (members.Client, error)) error {
	target, err := o.runClients().DNS(in.Federation)(cluster)
	if err != nil {
		return err
	}
	flags := o.DNS
	flags.Withdrawn = gone
	res, err := flags.ComputeDNS(ctx, o.IO, in, clients, target, o.Timeout)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	dry, suffix := cmdutil.DNSDryRun(o.DryRun)
	opts := dnssync.WriteOptions{FieldManager: propagate.FieldManager, DryRun: dry}
	for _, live := range target.Written {
		opts.Set = cmp.Or(opts.Set, live.GetLabels()[dnssync.SetLabel])
	}
	if _, err := dnssync.Write(wctx, target.Client, cluster, res.Records, target.Written, opts); err != nil {
		return fmt.Errorf("DNS records in cluster %s: %w", cluster, err)
	}
	fmt.Fprintf(o.IO.ErrOut, "%s DNS: the targets of %s withdrawn from %d DNSEndpoints in cluster %s%s\n",
		o.IO.ErrColorScheme().SuccessIcon(), strings.Join(gone, ", "), len(res.Records), cluster, suffix)
	return nil
}
