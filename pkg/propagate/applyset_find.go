package propagate

import (
	"context"
	"slices"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/parallel"
)

// FindApplySet looks for the parents of the ApplySet set names (its kind and
// name) in every namespace of every member of clusters, each within
// timeout: objects of that kind and name whose ApplySetIDLabel is the ID of
// a set of that name in their own namespace. It returns the namespaces
// where a parent was found, each with the members holding it (sorted), and
// the error of each member that could not be read. set.Namespace is
// ignored: finding it is the point (apply --applyset NAME without -n).
func FindApplySet(ctx context.Context, set ApplySet, clusters []string, clients func(string) (members.Client, error), timeout time.Duration) (map[string][]string, map[string]error) {
	var mu sync.Mutex
	found := map[string][]string{}
	failed := map[string]error{}
	var g parallel.Group
	for _, cluster := range clusters {
		g.Go(func() {
			namespaces, err := findApplySetIn(ctx, set, cluster, clients, timeout)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[cluster] = err
				return
			}
			for _, ns := range namespaces {
				found[ns] = append(found[ns], cluster)
			}
		})
	}
	g.Wait()
	for ns := range found {
		slices.Sort(found[ns])
	}
	return found, failed
}

func findApplySetIn(ctx context.Context, set ApplySet, cluster string, clients func(string) (members.Client, error), timeout time.Duration) ([]string, error) {
	c, err := clients(cluster)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	items, err := c.ListMetadata(ctx, set.mapping(), members.ListOptions{LabelSelector: ApplySetIDLabel, FieldSelector: "metadata.name=" + set.Name})
	if err != nil {
		return nil, members.RequestError(err)
	}
	var namespaces []string
	for _, it := range items {
		there := set
		there.Namespace = it.Namespace
		if it.Name == set.Name && it.Labels[ApplySetIDLabel] == there.ID() {
			namespaces = append(namespaces, it.Namespace)
		}
	}
	return namespaces, nil
}

// RecordedDNSContexts reads the parent of set (in set.Namespace) in every
// member of clusters, each within timeout, and returns the DNS clusters
// their ApplySetDNSContextAnnotation records, each with the members whose
// parent records it (sorted), and the error of each member that could not
// be read. A member without the parent, or whose parent records none or is
// not the set's, is in neither.
func RecordedDNSContexts(ctx context.Context, set ApplySet, clusters []string, clients func(string) (members.Client, error), timeout time.Duration) (map[string][]string, map[string]error) {
	var mu sync.Mutex
	found := map[string][]string{}
	failed := map[string]error{}
	var g parallel.Group
	for _, cluster := range clusters {
		g.Go(func() {
			recorded, err := recordedDNSContextIn(ctx, set, cluster, clients, timeout)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				failed[cluster] = err
				return
			}
			for dnsContext := range splitList(recorded) {
				found[dnsContext] = append(found[dnsContext], cluster)
			}
		})
	}
	g.Wait()
	for c := range found {
		slices.Sort(found[c])
	}
	return found, failed
}

func recordedDNSContextIn(ctx context.Context, set ApplySet, cluster string, clients func(string) (members.Client, error), timeout time.Duration) (string, error) {
	c, err := clients(cluster)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	parent, err := c.Get(ctx, set.mapping(), set.Namespace, set.Name)
	switch {
	case apierrors.IsNotFound(err):
		return "", nil
	case err != nil:
		return "", members.RequestError(err)
	case parent.GetLabels()[ApplySetIDLabel] != set.ID():
		return "", nil // not the set's: the apply says so
	}
	return parent.GetAnnotations()[ApplySetDNSContextAnnotation], nil
}
