package propagate

import (
	"cmp"
	"context"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/fedctl/fedctl/pkg/members"
)

// FindApplySet looks for the parents of the ApplySet set names (its kind and
// name) in every namespace of every member of clusters, each within
// timeout: objects of that kind and name whose ApplySetIDLabel is the ID of
// a set of that name in their own namespace. It returns the namespaces
// where a parent was found, each with the members holding it (sorted), and
// the error of each member that could not be read. set.Namespace is
// ignored: finding it is the point (apply --applyset NAME without -n).
func FindApplySet(ctx context.Context, set ApplySet, clusters []string, clients func(string) (members.Client, error), timeout time.Duration) (map[string][]string, map[string]error) {
	byMember, failed := eachMember(ctx, clusters, timeout, func(ctx context.Context, cluster string) ([]string, error) {
		return findApplySetIn(ctx, set, cluster, clients, timeout)
	})
	return byValue(byMember), failed
}

// eachMember runs read for every member of clusters in parallel, each
// within timeout (members.Gather: a member whose client never comes is
// given up on then), and returns what it read in each, and the error of
// each it could not.
func eachMember[T any](ctx context.Context, clusters []string, timeout time.Duration, read func(ctx context.Context, cluster string) (T, error)) (map[string]T, map[string]error) {
	type answer struct {
		v   T
		err error
	}
	answers, errs := members.Gather(ctx, len(clusters), timeout, len(clusters), func(ctx context.Context, i int) answer {
		v, err := read(ctx, clusters[i])
		return answer{v, err}
	})
	got := map[string]T{}
	failed := map[string]error{}
	for i, cluster := range clusters {
		if err := cmp.Or(errs[i], answers[i].err); err != nil {
			failed[cluster] = err
			continue
		}
		got[cluster] = answers[i].v
	}
	return got, failed
}

// byValue turns what each member holds into the members that hold each
// value, sorted.
func byValue(byMember map[string][]string) map[string][]string {
	out := map[string][]string{}
	for cluster, values := range byMember {
		for _, v := range values {
			out[v] = append(out[v], cluster)
		}
	}
	for v := range out {
		slices.Sort(out[v])
	}
	return out
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
	byMember, failed := eachMember(ctx, clusters, timeout, func(ctx context.Context, cluster string) ([]string, error) {
		recorded, err := recordedDNSContextIn(ctx, set, cluster, clients, timeout)
		return sets.List(splitList(recorded)), err
	})
	return byValue(byMember), failed
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
