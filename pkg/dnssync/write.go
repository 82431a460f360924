package dnssync

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/dns"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

// EndpointGVK is ExternalDNS's DNSEndpoint.
var EndpointGVK = schema.GroupVersionKind{Group: "externaldns.k8s.io", Version: "v1alpha1", Kind: dns.EndpointKind}

// NotServedError says the DNS cluster lacks ExternalDNS's CRD.
type NotServedError struct{ Cluster string }

func (e *NotServedError) Error() string {
	return fmt.Sprintf("cluster %s does not serve %s %s: install ExternalDNS's DNSEndpoint CRD there (its crd source reads them)", e.Cluster, EndpointGVK.GroupVersion(), EndpointGVK.Kind)
}

// mapping maps the DNSEndpoint kind in the DNS cluster.
func mapping(ctx context.Context, client members.Client, cluster string) (members.Mapping, error) {
	m, err := client.Map(ctx, EndpointGVK)
	var ns *members.NotServedError
	if errors.As(err, &ns) {
		return m, &NotServedError{Cluster: cluster}
	}
	return m, err
}

// Previous reads the DNSEndpoints written before for the records, for the
// targets they recorded (dns.Input.Previous); one not there yet records
// nothing.
func Previous(ctx context.Context, client members.Client, cluster string, in federation.DNS) (map[string]map[string]dns.Recorded, error) {
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return nil, err
	}
	type named struct{ kind, namespace, name string }
	var records []named
	for _, r := range in.Services {
		records = append(records, named{"Service", r.Namespace, r.Name})
	}
	for _, r := range in.Ingresses {
		records = append(records, named{"Ingress", r.Namespace, r.Name})
	}
	out := map[string]map[string]dns.Recorded{}
	for _, r := range records {
		live, err := client.Get(ctx, m, r.namespace, dns.EndpointName(r.kind, r.name))
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return nil, members.RequestErrorIn(ctx, err)
		}
		out[dns.RecordKey(r.kind, r.namespace, r.name)] = dns.PreviousTargets(live.GetAnnotations())
	}
	return out, nil
}

// Write server-side applies each record's DNSEndpoint in the DNS cluster,
// as fieldManager; the endpoints list is replaced whole, so targets that
// went away are gone.
func Write(ctx context.Context, client members.Client, cluster string, records []dns.Record, opts members.WriteOptions) error {
	m, err := mapping(ctx, client, cluster)
	if err != nil {
		return err
	}
	var errs []error
	for _, r := range records {
		obj := &unstructured.Unstructured{Object: r.Object}
		if _, err := client.Apply(ctx, m, obj, opts); err != nil {
			errs = append(errs, fmt.Errorf("DNSEndpoint %s/%s: %w", obj.GetNamespace(), obj.GetName(), members.RequestErrorIn(ctx, err)))
		}
	}
	return errors.Join(errs...)
}
