package pipeline

import (
	"errors"

	"github.com/fedctl/fedctl/pkg/federation"
)

// LimitToNamespace applies a namespace-scoped federation (the federation
// file's namespace) to a decoded set, as KubeFed's namespaced control
// plane behaves: it watches its own namespace only, starts no sync
// controller for cluster-scoped types, and places a namespaced object by
// its own placement when no FederatedNamespace exists, else by the
// intersection with it (pkg/controller/util/placement.go
// ComputeNamespacedPlacement, limitedScope). The FederatedNamespace of
// the namespace, if any, is never propagated itself: the namespace exists
// in the members already.
//
// Where KubeFed silently ignores what lies outside, fedctl reports it at
// its file and line and drops it, so that a wrong namespace in a pipeline
// fails loudly: an object in another namespace, a cluster-scoped one, a
// FederatedNamespace of another namespace, a preference elsewhere.
func LimitToNamespace(set *federation.Set, ns string, types federation.Types) (*federation.Set, error) {
	var errs []error
	out := &federation.Set{Warnings: set.Warnings, DNS: federation.DNS{Domains: set.DNS.Domains}}
	for _, r := range set.DNS.Services {
		if r.Namespace != ns {
			errs = append(errs, r.Errorf("metadata.namespace", "is %q, outside the federation's namespace %s (its file's namespace)", r.Namespace, ns))
			continue
		}
		out.DNS.Services = append(out.DNS.Services, r)
	}
	for _, r := range set.DNS.Ingresses {
		if r.Namespace != ns {
			errs = append(errs, r.Errorf("metadata.namespace", "is %q, outside the federation's namespace %s (its file's namespace)", r.Namespace, ns))
			continue
		}
		out.DNS.Ingresses = append(out.DNS.Ingresses, r)
	}
	for _, o := range set.Objects {
		t, known := types.ByFederatedKind(o.Kind)
		switch {
		case o.IsNamespace() && o.Name != ns:
			errs = append(errs, o.Errorf("metadata.name", "the federation is scoped to namespace %s (its file's namespace): no other namespace is propagated", ns))
			continue
		case o.IsNamespace():
			c := *o
			c.Rules.PlacementOnly = true
			o = &c
		case known && !t.Namespaced():
			errs = append(errs, o.Errorf("kind", "%s is cluster-scoped: a federation scoped to namespace %s propagates namespaced types only, as KubeFed's namespaced control plane", t.Kind, ns))
			continue
		case o.Namespace != ns:
			errs = append(errs, o.Errorf("metadata.namespace", "is %q, outside the federation's namespace %s (its file's namespace); move the object there or use a federation file without namespace", o.Namespace, ns))
			continue
		default:
			c := *o
			c.Rules.NamespaceOptional = true
			o = &c
		}
		out.Objects = append(out.Objects, o)
	}
	for _, rsp := range set.RSPs {
		if rsp.Namespace != ns {
			errs = append(errs, rsp.Errorf("metadata.namespace", "is %q, outside the federation's namespace %s (its file's namespace)", rsp.Namespace, ns))
			continue
		}
		out.RSPs = append(out.RSPs, rsp)
	}
	return out, errors.Join(errs...)
}
