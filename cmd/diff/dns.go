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
// would delete. They come as the comparisons of the DNS cluster, which go
// into the LIVE and MERGED trees beside the members' objects; nil when the
// input has no DNS records and nothing to prune, or nothing names a DNS
// cluster to prune in. Records with nowhere to go are an error, as for
// apply.
//
// The members are read through clients, the comparison's own.
func (o *DiffOptions) compareDNS(ctx context.Context, in *cmdutil.Rendered, set *propagate.ApplySet, clients func(string) (members.Client, error)) (*propagate.ClusterResult, error) {
	records := in.Set.DNS.Records()
	if !records && set == nil {
		return nil, nil
	}
	cluster, err := o.DNS.DNSCluster(in.Set)
	switch {
	case err != nil:
		return nil, err
	case cluster == "" && records:
		return nil, errors.New("the input has DNS records, and nothing says where ExternalDNS runs: set spec.context on the Domain, or pass --dns-context (a member or a kubeconfig context)")
	case cluster == "":
		return nil, nil
	}
	access, err := o.Access()
	if err != nil {
		return nil, err
	}
	o.timeFlags().Apply(&access)
	target, err := o.DNS.OpenDNS(in.Federation, in.Set, access, o.NewClient)
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

// endpointResult names a DNSEndpoint as propagate names member objects.
func endpointResult(obj *unstructured.Unstructured, action propagate.Action) propagate.ObjectResult {
	return propagate.ObjectResult{APIVersion: dnssync.EndpointGVK.GroupVersion().String(), Kind: dnssync.EndpointGVK.Kind,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), Action: action}
}
