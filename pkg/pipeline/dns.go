package pipeline

import (
	"github.com/fedctl/fedctl/pkg/federation"
)

// checkDNS checks what the DNS inputs refer to, across dialects: a Domain
// named once; a record's domainRef naming a Domain; its Service or Ingress
// in the input as a federated object of the same namespace and name (KubeFed
// paired them by name); one record per Service or Ingress.
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
	return errs
}
