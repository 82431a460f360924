package pipeline

import (
	"fmt"

	"github.com/fedctl/fedctl/pkg/federation"
)

// checkDNS checks what the DNS inputs refer to, across dialects: a Domain
// named once; a record's domainRef naming a Domain; its Service or Ingress
// in the input as a federated object of the same namespace and name (KubeFed
// paired them by name); one record per Service or Ingress; no DNS name
// written by two records (checkNames).
func checkDNS(set *federation.Set) []error {
	var errs []error
	domains := map[string]*federation.Domain{}
	for _, d := range set.DNS.Domains {
		if first, dup := domains[d.Name]; dup {
			errs = append(errs, d.Errorf("metadata.name", "a second Domain %s (the first is at %s:%d)", d.Name, first.Pos.File(), first.Pos.Line("")))
			continue
		}
		domains[d.Name] = d
	}
	objects := map[string]bool{}
	for _, o := range set.Objects {
		objects[o.TargetKey()] = true
	}
	seen := map[string]bool{}
	for _, r := range set.DNS.Services {
		if _, ok := domains[r.Spec.DomainRef]; !ok {
			errs = append(errs, r.Errorf("spec.domainRef", "no Domain %s in the input", r.Spec.DomainRef))
		}
		if !objects[federation.KindPrefix+"Service/"+r.Namespace+"/"+r.Name] {
			errs = append(errs, r.Errorf("metadata.name", "no FederatedService %s/%s in the input: a record names the Service it is for", r.Namespace, r.Name))
		}
		if key := "s/" + r.Namespace + "/" + r.Name; seen[key] {
			errs = append(errs, r.Errorf("metadata.name", "a second ServiceDNSRecord for the Service %s/%s", r.Namespace, r.Name))
		} else {
			seen[key] = true
		}
	}
	for _, r := range set.DNS.Ingresses {
		if !objects[federation.KindPrefix+"Ingress/"+r.Namespace+"/"+r.Name] {
			errs = append(errs, r.Errorf("metadata.name", "no FederatedIngress %s/%s in the input: a record names the Ingress it is for", r.Namespace, r.Name))
		}
		if key := "i/" + r.Namespace + "/" + r.Name; seen[key] {
			errs = append(errs, r.Errorf("metadata.name", "a second IngressDNSRecord for the Ingress %s/%s", r.Namespace, r.Name))
		} else {
			seen[key] = true
		}
	}
	return append(errs, checkNames(set.DNS)...)
}

// checkNames checks, before any member is read, that no two records write
// one of the DNS names the input alone decides: a Service record's global
// name and its dnsPrefix name, an Ingress record's hosts. Their
// DNSEndpoints would fight over it, each apply and ExternalDNS run undoing
// the other's; found only once both have load balancers, the clash would
// pass the first apply and fail a later one. Each clash is reported at the
// second record, naming the first. (Region and zone names depend on the
// members, and dns.Endpoints checks them.)
func checkNames(d federation.DNS) []error {
	domains := map[string]string{}
	for _, dom := range d.Domains {
		domains[dom.Name] = dom.Domain
	}
	type writer struct{ id, at string }
	writers := map[string]writer{}
	// taken records w as name's writer, or returns the record that wrote
	// it first when that is another
	taken := func(name string, w writer) (writer, bool) {
		first, seen := writers[name]
		if !seen {
			writers[name] = w
		}
		return first, seen && first.id != w.id
	}
	const clash = "writes the DNS name %s, which %s (%s) writes too; give one of them another"
	var errs []error
	for _, r := range d.Services {
		domain, ok := domains[r.Spec.DomainRef]
		if !ok {
			continue // checkDNS reports the missing Domain
		}
		w := writer{id: r.ID(), at: fmt.Sprintf("%s:%d", r.Pos.File(), r.Pos.Line(""))}
		field := "metadata.name"
		if r.Spec.ExternalName != "" {
			field = "spec.externalName"
		}
		global := r.NamePrefix() + "." + domain
		if first, ok := taken(global, w); ok {
			errs = append(errs, r.Errorf(field, clash, global, first.id, first.at))
		}
		if r.Spec.DNSPrefix != "" {
			name := r.Spec.DNSPrefix + "." + domain
			if first, ok := taken(name, w); ok {
				errs = append(errs, r.Errorf("spec.dnsPrefix", clash, name, first.id, first.at))
			}
		}
	}
	for _, r := range d.Ingresses {
		w := writer{id: r.ID(), at: fmt.Sprintf("%s:%d", r.Pos.File(), r.Pos.Line(""))}
		for i, host := range r.Spec.Hosts {
			if first, ok := taken(host, w); ok {
				errs = append(errs, r.Errorf(fmt.Sprintf("spec.hosts[%d]", i), clash, host, first.id, first.at))
			}
		}
	}
	return errs
}
