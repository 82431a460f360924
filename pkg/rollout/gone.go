package rollout

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"slices"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/status"
)

// waitGone waits, for a delete, until every object the wave deleted in
// clusters is gone from its member: a deletion returns at once, while a
// finalizer, or the dependents of --cascade=foreground, can hold the object
// for long, and the next wave must not start while this one is still
// going. It returns, per member that did not get there within ctx, why.
func (r *runner) waitGone(ctx context.Context, report *propagate.Report, clusters []string) map[string]string {
	left := map[string][]propagate.ObjectResult{}
	n := 0
	for _, c := range report.Clusters {
		if !slices.Contains(clusters, c.Cluster) {
			continue
		}
		for _, o := range c.Objects {
			if o.Action == propagate.Deleted {
				left[c.Cluster] = append(left[c.Cluster], o)
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	fmt.Fprintf(r.out, "  waiting until the %d deleted objects are gone\n", n)
	interval := r.in.Interval
	if interval <= 0 {
		interval = status.DefaultInterval
	}
	lastErr := map[string]error{}
	for {
		// members in parallel: one slow to answer does not hold up the
		// others' checks
		// (members.Gather: one whose client never comes is given up on
		// when the wave's time ends)
		type check struct {
			there []propagate.ObjectResult
			err   error
		}
		clusters := slices.Sorted(maps.Keys(left))
		checks, failed := members.Gather(ctx, len(clusters), 0, len(clusters), func(ctx context.Context, i int) check {
			there, err := r.stillThere(ctx, clusters[i], left[clusters[i]])
			return check{there, err}
		})
		for i, cluster := range clusters {
			c := checks[i]
			if failed[i] != nil {
				c = check{there: left[cluster], err: failed[i]}
			}
			lastErr[cluster] = c.err
			if len(c.there) == 0 && c.err == nil {
				delete(left, cluster)
				continue
			}
			left[cluster] = c.there
		}
		if len(left) == 0 {
			fmt.Fprintf(r.out, "  gone\n")
			return nil
		}
		if still := countLeft(left); still != n {
			n = still // progress while a finalizer holds some
			fmt.Fprintf(r.out, "  %d still there\n", n)
		}
		select {
		case <-ctx.Done():
			reasons := map[string]string{}
			for cluster, objs := range left {
				refs := make([]string, 0, len(objs))
				for _, o := range objs {
					refs = append(refs, o.Ref())
				}
				reasons[cluster] = fmt.Sprintf("not gone within %s: %s", r.within(ctx), refList(refs))
				if err := lastErr[cluster]; err != nil {
					reasons[cluster] += fmt.Sprintf(" (last read: %v)", err)
				}
			}
			return reasons
		case <-time.After(interval):
		}
	}
}

// stillThere are the objects of objs that cluster still holds: fedctl's,
// so that a namesake another tool made in the meantime does not hold the
// wave. An object that cannot be read counts as there, with the error.
// Objects of one type in one namespace are read with one metadata LIST of
// fedctl's objects there when there are several, so that a wave that
// deleted thousands of objects polls with a request per type and
// namespace, not per object; a lone one is read with a GET.
func (r *runner) stillThere(ctx context.Context, cluster string, objs []propagate.ObjectResult) ([]propagate.ObjectResult, error) {
	client, err := r.in.Clients(cluster)
	if err != nil {
		return objs, err
	}
	type group struct{ apiVersion, kind, namespace string }
	byGroup := map[group][]propagate.ObjectResult{}
	var order []group
	for _, o := range objs {
		k := group{o.APIVersion, o.Kind, o.Namespace}
		if _, ok := byGroup[k]; !ok {
			order = append(order, k)
		}
		byGroup[k] = append(byGroup[k], o)
	}
	var there []propagate.ObjectResult
	var lastErr error
	// Each poll starts where the last one stopped, so that a group that
	// fails every time (one type's API behind a webhook that answers 500)
	// does not keep the member's other groups from ever being read.
	r.mu.Lock()
	start := r.firstGroup[cluster] % len(order)
	r.mu.Unlock()
	order = slices.Concat(order[start:], order[:start])
	for i, k := range order {
		held, err := r.read(ctx, client, byGroup[k])
		var notServed *members.NotServedError
		switch {
		case errors.As(err, &notServed): // its type went too
		case errors.As(err, new(*notAnsweringError)):
			// the member did not answer: the other groups would only
			// wait out a request's time each; all stay there, and the
			// next poll starts with the group after this one
			for _, rest := range order[i:] {
				there = append(there, byGroup[rest]...)
			}
			r.mu.Lock()
			if r.firstGroup == nil {
				r.firstGroup = map[string]int{}
			}
			r.firstGroup[cluster] = start + i + 1
			r.mu.Unlock()
			return there, err
		case err != nil:
			there, lastErr = append(there, byGroup[k]...), err
		default:
			there = append(there, held...)
		}
	}
	return there, lastErr
}

// read says which of objs, all of one type and namespace, the member
// still holds, within one request's time.
func (r *runner) read(ctx context.Context, client members.Client, objs []propagate.ObjectResult) ([]propagate.ObjectResult, error) {
	ctx, cancel := context.WithTimeout(ctx, r.requestTimeout())
	defer cancel()
	first := objs[0]
	m, err := client.Map(ctx, schema.FromAPIVersionAndKind(first.APIVersion, first.Kind))
	if err != nil {
		return nil, requestError(ctx, err)
	}
	if len(objs) == 1 {
		live, err := client.Get(ctx, m, first.Namespace, first.Name)
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case err != nil:
			return nil, requestError(ctx, err)
		case !federation.Owned(live):
			return nil, nil // a namesake another tool made: fedctl's is gone, as the LIST says
		}
		return objs, nil
	}
	items, err := client.ListMetadata(ctx, m, members.ListOptions{Namespace: first.Namespace, LabelSelector: federation.ManagedBySelector})
	if err != nil {
		return nil, requestError(ctx, err)
	}
	names := make(map[string]bool, len(items))
	for _, it := range items {
		names[it.Name] = true
	}
	return slices.DeleteFunc(slices.Clone(objs), func(o propagate.ObjectResult) bool { return !names[o.Name] }), nil
}

// requestTimeout bounds one read of a member.
func (r *runner) requestTimeout() time.Duration {
	if r.in.RequestTimeout > 0 {
		return r.in.RequestTimeout
	}
	return propagate.DefaultTimeout
}

// countLeft counts the objects left, over every member.
func countLeft(left map[string][]propagate.ObjectResult) int {
	n := 0
	for _, objs := range left {
		n += len(objs)
	}
	return n
}

// notAnsweringError is a read the member did not answer (it timed out, was
// refused, the network failed, or it answered 429 or 5xx for most of the
// request's time), not one it answered with an error of this read's own.
type notAnsweringError struct{ err error }

func (e *notAnsweringError) Error() string { return e.err.Error() }
func (e *notAnsweringError) Unwrap() error { return e.err }

// requestError is members.RequestErrorIn, marked notAnsweringError when
// the member did not answer: no answer at all, or none but transient
// errors (429, 5xx), which the run's clients (members.Retrying) retry for
// as long as the request's time allows before they return one: a member
// that answers 503 to everything costs that time at every read, as one
// that is silent does. One type whose API group cannot be discovered (an
// aggregated API that is down) says nothing of the member's other types.
func requestError(ctx context.Context, err error) error {
	e := members.RequestErrorIn(ctx, err)
	var group *members.GroupDiscoveryError
	if unanswered(err) || members.Transient(err) && !errors.As(err, &group) {
		return &notAnsweringError{e}
	}
	return e
}

// unanswered says err is a member that did not answer a request.
func unanswered(err error) bool {
	var status apierrors.APIStatus
	if err == nil || errors.As(err, &status) {
		return false
	}
	var netErr net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) || errors.As(err, &netErr)
}
