package members

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/parallel"
)

// ResourceCount is how many objects fedctl left of one resource in a
// member, and which.
type ResourceCount struct {
	Resource   string // plural.group, e.g. "deployments.apps"
	Namespaced bool
	Count      int
	// Names are "namespace/name" (namespaced) or "name", sorted.
	Names []string
}

// skippedResources would be counted twice or are never propagated.
var skippedResources = map[string]bool{"events": true, "events.events.k8s.io": true, "componentstatuses": true}

// ManagedObjects lists, per resource (sorted), the objects in the member c
// reaches that fedctl created: labelled app.kubernetes.io/managed-by=fedctl.
// Leaving the federation does not remove them, and unjoin says so. It lists
// metadata only, one request per listable resource, a few at a time.
// Resources that fail to list, and groups that fail discovery, are reported
// in the error while the others are still counted. A namespace-scoped
// federation (namespace not "") has objects in its namespace only: the
// label says fedctl, not which federation, so what other federations keep
// elsewhere in the member is not listed as this one's.
func ManagedObjects(ctx context.Context, c Client, namespace string) ([]ResourceCount, error) {
	lists, err := c.Resources(ctx)
	var de *DiscoveryError
	if err != nil && !errors.As(err, &de) {
		return nil, err
	}
	var resources []Mapping
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") {
				continue
			}
			gvr := gv.WithResource(r.Name)
			if skippedResources[gvr.GroupResource().String()] || namespace != "" && !r.Namespaced {
				continue
			}
			resources = append(resources, Mapping{Resource: gvr, Namespaced: r.Namespaced})
		}
	}
	selector := federation.ManagedBySelector
	names := make([][]string, len(resources))
	errs := make([]error, len(resources))
	sem := make(chan struct{}, 8)
	var g parallel.Group
	for i, m := range resources {
		g.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			items, err := c.ListMetadata(ctx, m, ListOptions{Namespace: namespace, LabelSelector: selector})
			if err != nil {
				errs[i] = fmt.Errorf("list %s: %w", m.Resource.GroupResource(), RequestError(err))
				return
			}
			for _, it := range items {
				name := it.Name
				if it.Namespace != "" {
					name = it.Namespace + "/" + it.Name
				}
				names[i] = append(names[i], name)
			}
			slices.Sort(names[i])
		})
	}
	g.Wait()
	var out []ResourceCount
	for i, m := range resources {
		if len(names[i]) > 0 {
			out = append(out, ResourceCount{Resource: m.Resource.GroupResource().String(), Namespaced: m.Namespaced, Count: len(names[i]), Names: names[i]})
		}
	}
	slices.SortFunc(out, func(a, b ResourceCount) int { return strings.Compare(a.Resource, b.Resource) })
	if de != nil {
		errs = append(errs, de)
	}
	return out, errors.Join(errs...)
}

// ApplySetParents lists, as "namespace/name" sorted, the Secrets in the
// member c reaches that are the parents of ApplySets fedctl manages
// ("apply --prune --applyset"). They carry no managed-by label, being no
// federated object's, so ManagedObjects does not count them; unjoin lists
// them apart. A namespace-scoped federation's are in its namespace.
func ApplySetParents(ctx context.Context, c Client, namespace string) ([]string, error) {
	secrets := Mapping{Resource: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, Namespaced: true}
	items, err := c.ListMetadata(ctx, secrets, ListOptions{Namespace: namespace, LabelSelector: federation.ApplySetIDLabel})
	if err != nil {
		return nil, fmt.Errorf("list ApplySet parents (secrets): %w", RequestError(err))
	}
	var out []string
	for _, it := range items {
		if federation.OwnedApplySetParent(&it) {
			out = append(out, it.Namespace+"/"+it.Name)
		}
	}
	slices.Sort(out)
	return out, nil
}
