package members

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"

	"github.com/fedctl/fedctl/pkg/federation"
)

// ResourceCount is how many federation-managed objects of one resource a
// member holds.
type ResourceCount struct {
	Resource string // plural.group, e.g. "deployments.apps"
	Count    int
}

// skippedResources would be counted twice or are never propagated.
var skippedResources = map[string]bool{"events": true, "events.events.k8s.io": true, "componentstatuses": true}

// ManagedObjects counts, per resource, the objects in m labelled as managed by
// the federation (kubefed.io/managed=true). Leaving the federation does not
// remove them, and unjoin says so. It lists metadata only, one request per
// listable resource, a few at a time. Resources that fail to list are
// reported in the error while the others are still counted.
func ManagedObjects(ctx context.Context, a Access, m Member) ([]ResourceCount, error) {
	cfg, err := a.RESTConfig(m)
	if err != nil {
		return nil, err
	}
	// Listing every type draws deprecation warnings (Endpoints, ...) that
	// say nothing about what unjoin leaves behind.
	cfg.WarningHandler = rest.NoWarnings{}
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	meta, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := disco.ServerPreferredResources()
	if err != nil && len(lists) == 0 {
		return nil, explain(cfg.Host, m, err)
	}
	var resources []schema.GroupVersionResource
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
			if skippedResources[gvr.GroupResource().String()] {
				continue
			}
			resources = append(resources, gvr)
		}
	}
	selector := federation.ManagedLabel + "=" + federation.ManagedLabelValue
	counts := make([]int, len(resources))
	errs := make([]error, len(resources))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, gvr := range resources {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			list, err := meta.Resource(gvr).List(ctx, metav1.ListOptions{LabelSelector: selector})
			if err != nil {
				errs[i] = fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
				return
			}
			counts[i] = len(list.Items)
		})
	}
	wg.Wait()
	var out []ResourceCount
	for i, gvr := range resources {
		if counts[i] > 0 {
			out = append(out, ResourceCount{Resource: gvr.GroupResource().String(), Count: counts[i]})
		}
	}
	slices.SortFunc(out, func(a, b ResourceCount) int { return strings.Compare(a.Resource, b.Resource) })
	return out, errors.Join(errs...)
}
