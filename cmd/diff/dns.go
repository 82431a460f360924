package diff

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/dnssync"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
)

// compareDNS says what apply would change in the DNS cluster: the
// DNSEndpoints of the input's records that differ from the live ones (a
// server-side dry run each), and with --prune those of the set that apply
// would delete, in cluster (see dnsCluster). They come as the comparisons
// of the DNS cluster, which go into the LIVE and MERGED trees beside the
// members' objects; nil when there is no DNS cluster.
//
// The members are read through clients, the comparison's own.
func (o *DiffOptions) compareDNS(ctx context.Context, in *cmdutil.Rendered, cluster string, set *propagate.ApplySet, clients func(string) (members.Client, error)) (*propagate.ClusterResult, error) {
	if cluster == "" {
		return nil, nil
	}
	records := in.Set.DNS.Records()
	access, err := o.Access()
	if err != nil {
		return nil, err
	}
	o.timeFlags().Apply(&access)
	target, err := cmdutil.OpenDNS(in.Federation, cluster, access, o.NewClient)
	if err != nil {
		return nil, err
	}
	res := &dns.Result{}
	if records {
		if res, err = o.DNS.ComputeDNS(ctx, o.IO, in, clients, target, o.Timeout); err != nil {
			return nil, fmt.Errorf("DNS records: %w", err)
		}
	}
	// bounded: a DNS cluster that answers 503 is retried within it
	dctx, cancel := context.WithTimeout(ctx, cmp.Or(o.Timeout, propagate.DefaultTimeout))
	defer cancel()
	opts := dnssync.WriteOptions{FieldManager: o.FieldManager}
	if set != nil {
		opts.Set = set.ID()
	}
	out := &propagate.ClusterResult{Cluster: cluster}
	var errs []error
	if len(res.Records) > 0 {
		compared, err := dnssync.Compare(dctx, target.Client, cluster, res.Records, target.Written, opts)
		errs = append(errs, err)
		for _, c := range compared {
			action := propagate.Configured
			if c.Live == nil {
				action = propagate.Created
			}
			out.Comparisons = append(out.Comparisons, propagate.Comparison{Object: endpointResult(c.Merged, action), Live: c.Live, Merged: c.Merged})
		}
	}
	if set != nil {
		removed, err := dnssync.Prune(dctx, target.Client, cluster, set.ID(), res.Records, dnssync.PruneOptions{DryRun: dnssync.ClientDryRun})
		var notServed *dnssync.NotServedError
		if !errors.As(err, &notServed) || len(res.Records) > 0 {
			errs = append(errs, err)
		}
		for _, r := range removed {
			if r.Left == "" {
				out.Comparisons = append(out.Comparisons, propagate.Comparison{Object: endpointResult(r.Object, propagate.Deleted), Live: r.Object})
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return out, fmt.Errorf("DNS records in cluster %s: %w", cluster, err)
	}
	return out, nil
}

// dnsCluster is where apply would write the input's DNS records and prune
// those of set, as apply decides it: the cluster the input or --dns-context
// names, else, with --prune, the one the set's parents recorded
// (cmdutil.SetDNSContext, which also records it on set, so that the
// parents' comparison shows what apply would write); "" when there is
// none. Records with nowhere to go are an error, as for apply.
func (o *DiffOptions) dnsCluster(ctx context.Context, in *cmdutil.Rendered, set *propagate.ApplySet, clients func(string) (members.Client, error)) (string, error) {
	records := in.Set.DNS.Records()
	if !records && set == nil {
		return "", nil
	}
	cluster, err := o.DNS.DNSCluster(in.Set)
	switch {
	case err != nil:
		return "", err
	case cluster == "" && records:
		return "", errors.New("the input has DNS records, and nothing says where ExternalDNS runs: set spec.context on the Domain, or pass --dns-context (a member or a kubeconfig context)")
	case set == nil:
		return cluster, nil
	}
	open := func(c string) (*cmdutil.DNSTarget, error) {
		access, err := o.Access()
		if err != nil {
			return nil, err
		}
		o.timeFlags().Apply(&access)
		return cmdutil.OpenDNS(in.Federation, c, access, o.NewClient)
	}
	return cmdutil.SetDNSContext(ctx, o.IO.ErrOut, o.IO.ErrColorScheme(), set, cluster, in.Clusters, clients, open, o.Timeout)
}

// endpointResult names a DNSEndpoint as propagate names member objects.
func endpointResult(obj *unstructured.Unstructured, action propagate.Action) propagate.ObjectResult {
	return propagate.ObjectResult{APIVersion: dnssync.EndpointGVK.GroupVersion().String(), Kind: dnssync.EndpointGVK.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), Action: action}
}
