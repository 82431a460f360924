package kubefed

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/federation"
)

// decodeDNS decodes a Domain, ServiceDNSRecord or IngressDNSRecord
// strictly into dec.
func decodeDNS(dec *decoded, doc dialect.Doc) {
	switch doc.Head.Kind {
	case federation.DomainKind:
		dec.domain = &federation.Domain{}
		dec.pos, dec.err = doc.Parsed.DecodeStrict(dec.domain)
	case federation.ServiceDNSRecordKind:
		dec.service = &federation.ServiceDNSRecord{}
		dec.pos, dec.err = doc.Parsed.DecodeStrict(dec.service)
	case federation.IngressDNSRecordKind:
		dec.ingress = &federation.IngressDNSRecord{}
		dec.pos, dec.err = doc.Parsed.DecodeStrict(dec.ingress)
	}
}

// addDNS checks a decoded DNS input and adds it to dns.
func addDNS(dns *federation.DNS, dec decoded, doc dialect.Doc, defaultNamespace string) error {
	h := doc.Head
	if version := strings.TrimPrefix(h.APIVersion, h.Group()+"/"); version != federation.DNSVersion {
		return doc.Errorf("apiVersion", "%s is not a version fedctl reads; %s is read as %s/%s (or %s/%s)", h.APIVersion, h.Kind,
			federation.DNSGroup, federation.DNSVersion, federation.LegacyDNSGroup, federation.DNSVersion)
	}
	if dec.err != nil {
		return dialect.WithObject(dec.err, h.ID())
	}
	switch h.Kind {
	case federation.DomainKind:
		d := dec.domain
		d.Pos = dec.pos
		var errs []error
		if d.Name == "" {
			errs = append(errs, d.Errorf("metadata.name", "is required: records name their Domain in spec.domainRef"))
		}
		errs = append(errs, hostErrors(d.Errorf, "domain", d.Domain, false)...)
		if err := errors.Join(errs...); err != nil {
			return err
		}
		dns.Domains = append(dns.Domains, d)
	case federation.ServiceDNSRecordKind:
		r := dec.service
		r.Pos = dec.pos
		if r.Namespace == "" {
			r.Namespace = defaultNamespace
		}
		var errs []error
		if r.Spec.DomainRef == "" {
			errs = append(errs, r.Errorf("spec.domainRef", "is required: the name of a Domain in the input"))
		}
		if r.Spec.RecordTTL < 0 {
			errs = append(errs, r.Errorf("spec.recordTTL", "must not be negative, got %d", r.Spec.RecordTTL))
		}
		for _, f := range []struct{ field, value string }{{"spec.dnsPrefix", r.Spec.DNSPrefix}, {"spec.externalName", r.Spec.ExternalName}} {
			if f.value != "" {
				errs = append(errs, hostErrors(r.Errorf, f.field, f.value, false)...)
			}
		}
		if w := r.Spec.Weighting; w != "" && w != federation.WeightingReplicas {
			errs = append(errs, r.Errorf("spec.weighting", "must be %q (each member weighted by its replicas) or left out, got %q", federation.WeightingReplicas, w))
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		dns.Services = append(dns.Services, r)
	case federation.IngressDNSRecordKind:
		r := dec.ingress
		r.Pos = dec.pos
		if r.Namespace == "" {
			r.Namespace = defaultNamespace
		}
		var errs []error
		if len(r.Spec.Hosts) == 0 {
			errs = append(errs, r.Errorf("spec.hosts", "is required: the names to point at the Ingress's load balancers"))
		}
		for i, host := range r.Spec.Hosts {
			errs = append(errs, hostErrors(r.Errorf, fmt.Sprintf("spec.hosts[%d]", i), host, true)...)
		}
		if r.Spec.RecordTTL < 0 {
			errs = append(errs, r.Errorf("spec.recordTTL", "must not be negative, got %d", r.Spec.RecordTTL))
		}
		if err := errors.Join(errs...); err != nil {
			return err
		}
		dns.Ingresses = append(dns.Ingresses, r)
	}
	return nil
}

// hostErrors checks a DNS name; a leading "*." is allowed when wildcard.
func hostErrors[E error](errorf func(string, string, ...any) E, field, name string, wildcard bool) []error {
	if name == "" {
		return []error{errorf(field, "is required")}
	}
	check := name
	if wildcard {
		check = strings.TrimPrefix(name, "*.")
	}
	var errs []error
	for _, msg := range validation.IsDNS1123Subdomain(check) {
		errs = append(errs, errorf(field, "%q: %s", name, msg))
	}
	return errs
}
