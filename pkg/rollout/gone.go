package rollout

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
		for cluster, objs := range left {
			objs, err := r.stillThere(ctx, cluster, objs)
			lastErr[cluster] = err
			if len(objs) == 0 && err == nil {
				delete(left, cluster)
				continue
			}
			left[cluster] = objs
		}
		if len(left) == 0 {
			fmt.Fprintf(r.out, "  gone\n")
			return nil
		}
		select {
		case <-ctx.Done():
			reasons := map[string]string{}
			for cluster, objs := range left {
				refs := make([]string, 0, len(objs))
				for _, o := range objs {
					refs = append(refs, o.Ref())
				}
				reasons[cluster] = fmt.Sprintf("not gone within the wave timeout %s: %s", r.in.Plan.Timeout, strings.Join(refs, ", "))
				if err := lastErr[cluster]; err != nil {
					reasons[cluster] += fmt.Sprintf(" (last read: %v)", err)
				}
			}
			return reasons
		case <-time.After(interval):
		}
	}
}

// stillThere are the objects of objs that cluster still holds. An object
// that cannot be read counts as there, with the error.
func (r *runner) stillThere(ctx context.Context, cluster string, objs []propagate.ObjectResult) ([]propagate.ObjectResult, error) {
	client, err := r.in.Clients(cluster)
	if err != nil {
		return objs, err
	}
	var there []propagate.ObjectResult
	var lastErr error
	for _, o := range objs {
		err := r.get(ctx, client, o)
		var notServed *members.NotServedError
		switch {
		case apierrors.IsNotFound(err), errors.As(err, &notServed): // its type went too
		case err != nil:
			there, lastErr = append(there, o), err
		default:
			there = append(there, o)
		}
	}
	return there, lastErr
}

// get reads o once, within one request's time.
func (r *runner) get(ctx context.Context, client members.Client, o propagate.ObjectResult) error {
	ctx, cancel := context.WithTimeout(ctx, r.requestTimeout())
	defer cancel()
	m, err := client.Map(ctx, schema.FromAPIVersionAndKind(o.APIVersion, o.Kind))
	if err == nil {
		_, err = client.Get(ctx, m, o.Namespace, o.Name)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		return members.RequestErrorIn(ctx, err)
	}
	return err
}

// requestTimeout bounds one read of a member.
func (r *runner) requestTimeout() time.Duration {
	if r.in.RequestTimeout > 0 {
		return r.in.RequestTimeout
	}
	return propagate.DefaultTimeout
}
