package rollout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestWaitGone: a delete wave waits for what it deleted, in the members it
// is judged on; an object still there at the wave's end, or a member that
// cannot be read, is the member's reason, naming the objects; a type no
// longer served (its CRD went too) is gone.
func TestWaitGone(t *testing.T) {
	t.Parallel()
	cm, _ := typeconfig.Default("configmaps")
	deleted := func(kind, apiVersion, name string) propagate.ObjectResult {
		return propagate.ObjectResult{APIVersion: apiVersion, Kind: kind, Namespace: "shop", Name: name, Action: propagate.Deleted}
	}
	report := &propagate.Report{Clusters: []propagate.ClusterResult{
		{Cluster: "a", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "held"), deleted("Widget", "example.com/v1", "w"), // not served by a
			{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: "kept", Action: propagate.Unchanged}}},
		{Cluster: "b", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "x")}},
		{Cluster: "c", Objects: []propagate.ObjectResult{deleted("ConfigMap", "v1", "y")}},
	}}
	a, b := memberstest.New(cm), memberstest.New(cm)
	held := &unstructured.Unstructured{}
	held.SetName("held")
	held.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue}) // fedctl's, held by a finalizer
	a.Put(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "held"), held)
	a.Put(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "kept"), held.DeepCopy())
	b.SetDown(errors.New("connection refused"))
	var progress bytes.Buffer
	r := &runner{out: &progress, in: Input{Plan: &Plan{Timeout: 300 * time.Millisecond}, Interval: 50 * time.Millisecond,
		Clients: func(c string) (members.Client, error) {
			return map[string]members.Client{"a": a, "b": b}[c], nil
		}}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	reasons := r.waitGone(ctx, report, []string{"a", "b"}) // c failed before: not judged
	assert.Equal(t, map[string]string{
		"a": "not gone within the wave timeout 300ms: ConfigMap shop/held",
		"b": "not gone within the wave timeout 300ms: ConfigMap shop/x (last read: connection refused)",
	}, reasons)
	assert.Contains(t, progress.String(), "waiting until the 3 deleted objects are gone")

	a.Remove(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "held"))
	b.SetDown(nil)
	progress.Reset()
	assert.Empty(t, r.waitGone(context.Background(), report, []string{"a", "b"}))
	assert.Contains(t, progress.String(), "  gone\n")
}

// TestWaitGoneListsPerType: several deleted objects of one type in one
// namespace are read with one metadata LIST of fedctl's objects there, per
// poll, instead of a GET each; a namesake that is not fedctl's (a new
// owner's object) does not hold the wave, listed or read alone; a failed
// LIST keeps all of them.
func TestWaitGoneListsPerType(t *testing.T) {
	t.Parallel()
	cm, _ := typeconfig.Default("configmaps")
	var objs []propagate.ObjectResult
	for _, name := range []string{"a", "b", "c", "held"} {
		objs = append(objs, propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: "shop", Name: name, Action: propagate.Deleted})
	}
	objs = append(objs, propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: "other", Name: "lone", Action: propagate.Deleted})
	report := &propagate.Report{Clusters: []propagate.ClusterResult{{Cluster: "m", Objects: objs}}}
	f := memberstest.New(cm)
	put := func(ns, name string, labels map[string]string) {
		o := &unstructured.Unstructured{}
		o.SetNamespace(ns)
		o.SetName(name)
		o.SetLabels(labels)
		f.Put(memberstest.KeyOf(memberstest.MappingOf(cm), ns, name), o)
	}
	ours := map[string]string{federation.ManagedByLabel: federation.ManagedByValue}
	put("shop", "held", ours)
	put("shop", "b", map[string]string{"owner": "someone-else"}) // recreated by another tool
	put("shop", "unrelated", ours)
	put("other", "lone", nil) // a namesake another tool made: read with a GET, and not fedctl's
	r := &runner{out: io.Discard, in: Input{Plan: &Plan{Timeout: 120 * time.Millisecond}, Interval: 50 * time.Millisecond,
		Clients: func(string) (members.Client, error) { return f, nil }}}

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel()
	assert.Equal(t, map[string]string{"m": "not gone within the wave timeout 120ms: ConfigMap shop/held"}, r.waitGone(ctx, report, []string{"m"}))
	calls := f.Calls()
	assert.Contains(t, calls, "LIST configmaps metadata shop")
	assert.Contains(t, calls, "GET configmaps lone", "a lone object is read with a GET")
	for _, name := range []string{"a", "b", "c"} {
		assert.NotContains(t, calls, "GET configmaps "+name, "no GET per object of a listed type")
	}
	assert.Equal(t, "LIST configmaps metadata shop", calls[slices.IndexFunc(calls, func(c string) bool { return strings.HasSuffix(c, " shop") || strings.HasSuffix(c, "held") })],
		"the first poll lists")
	assert.Contains(t, calls, "GET configmaps held", "once held is the only one left, it is read with a GET")

	f.ListErr = func(string) error { return errors.New("etcdserver: request timed out") }
	ctx2, cancel2 := context.WithTimeout(context.Background(), 120*time.Millisecond)
	defer cancel2()
	f.Remove(memberstest.KeyOf(memberstest.MappingOf(cm), "shop", "held"))
	assert.Equal(t, map[string]string{"m": "not gone within the wave timeout 120ms: ConfigMap shop/a, ConfigMap shop/b, ConfigMap shop/c and 1 more (last read: etcdserver: request timed out)"},
		r.waitGone(ctx2, report, []string{"m"}), "a failed read proves nothing gone (at most three named)")

	// a member that does not answer costs one request's time per poll,
	// not one per type and namespace
	f.ListErr = func(string) error { return fmt.Errorf("list: %w", context.DeadlineExceeded) }
	f.ClearCalls()
	there, err := r.stillThere(context.Background(), "m", objs)
	require.ErrorContains(t, err, "did not answer one request within the request timeout")
	assert.Len(t, there, len(objs), "everything stays there")
	assert.NotContains(t, f.Calls(), "GET configmaps lone", "not read after the member did not answer")

	// one group that fails every time (a webhook that answers 500 to
	// its type's LIST) does not keep the others from ever being read:
	// the next poll starts with the group after it
	f.ListErr = func(string) error { return apierrors.NewInternalError(errors.New("conversion webhook failed")) }
	f.ClearCalls()
	r.firstGroup = nil // the poll above left off after the LIST
	_, err = r.stillThere(context.Background(), "m", objs)
	require.ErrorContains(t, err, "conversion webhook failed")
	assert.NotContains(t, f.Calls(), "GET configmaps lone", "the first poll stops at the group that failed")
	f.ClearCalls()
	there, err = r.stillThere(context.Background(), "m", objs)
	require.ErrorContains(t, err, "conversion webhook failed")
	assert.Equal(t, "GET configmaps lone", f.Calls()[0], "the next poll starts with the group after it")
	assert.Len(t, there, len(objs)-1, "lone, read with its GET, is gone")

	// one that answers only 503, which the client retries until the
	// request's time has run out, is not asked again
	f.ListErr = func(string) error { return apierrors.NewServiceUnavailable("etcd is down") }
	f.ClearCalls()
	r.firstGroup = nil // start with the LIST again
	r.in.RequestTimeout = 150 * time.Millisecond
	r.in.Clients = func(string) (members.Client, error) { return members.Retrying(f), nil }
	there, err = r.stillThere(context.Background(), "m", objs)
	require.ErrorContains(t, err, "etcd is down")
	assert.Len(t, there, len(objs), "everything stays there")
	assert.NotContains(t, f.Calls(), "GET configmaps lone", "not read after the member answered only 503 for a request's whole time")

	f.ListErr = nil
	assert.Empty(t, r.waitGone(context.Background(), report, []string{"m"}))
}
