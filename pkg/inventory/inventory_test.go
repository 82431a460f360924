package inventory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestObjectListRedactsSecrets: no Secret value, nor what is derived from
// one, is printed; other kinds are left as they are.
func TestObjectListRedactsSecrets(t *testing.T) {
	t.Parallel()
	secret := unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "db", "annotations": map[string]any{
			federation.HashAnnotation: "abc", "kubectl.kubernetes.io/last-applied-configuration": `{"data":{"password":"aHVudGVyMg=="}}`, "other": "kept"}},
		"data":       map[string]any{"password": "aHVudGVyMg=="},
		"stringData": map[string]any{"user": "admin"},
	}}
	cm := unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cfg"}, "data": map[string]any{"k": "v"}}}
	list := ObjectList([]MemberObjects{
		{Cluster: "a", Objects: []unstructured.Unstructured{secret, cm}},
		{Cluster: "b", Err: errors.New("down")},
	}, false)
	assert.Len(t, list.Items, 2, "the member that failed is left out")
	got := list.Items[0].Object
	assert.Equal(t, map[string]any{"password": "REDACTED"}, got["data"])
	assert.Equal(t, map[string]any{"user": "REDACTED"}, got["stringData"])
	ann := got["metadata"].(map[string]any)["annotations"].(map[string]any)
	assert.Equal(t, "REDACTED", ann[federation.HashAnnotation])
	assert.Equal(t, "REDACTED", ann["kubectl.kubernetes.io/last-applied-configuration"])
	assert.Equal(t, "kept", ann["other"])
	assert.Equal(t, "aHVudGVyMg==", secret.Object["data"].(map[string]any)["password"], "the object read is not changed")
	assert.Equal(t, map[string]any{"k": "v"}, list.Items[1].Object["data"])
	assert.Equal(t, "configmap/cfg", ObjectName(cm))
}

// TestObjectListManagedFields: metadata.managedFields is left out unless
// asked for, as kubectl get does, and the object read is not changed.
func TestObjectListManagedFields(t *testing.T) {
	t.Parallel()
	managed := []any{map[string]any{"manager": "fedctl", "operation": "Apply"}}
	cm := unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "cfg", "managedFields": managed}, "data": map[string]any{"k": "v"}}}
	in := []MemberObjects{{Cluster: "a", Objects: []unstructured.Unstructured{cm}}}

	got := ObjectList(in, false).Items[0].Object
	assert.Equal(t, map[string]any{"name": "cfg"}, got["metadata"])
	assert.Equal(t, map[string]any{"k": "v"}, got["data"])
	assert.Equal(t, managed, cm.Object["metadata"].(map[string]any)["managedFields"], "the object read is not changed")

	got = ObjectList(in, true).Items[0].Object
	assert.Equal(t, managed, got["metadata"].(map[string]any)["managedFields"], "--show-managed-fields")
}

// TestObjectTable: members' tables merge under the first member's
// columns, with CLUSTER first; a member whose server lacks a column shows
// <none> there, as kubectl does; -o wide adds the priority columns; the
// rows keep the labels for -L.
func TestObjectTable(t *testing.T) {
	t.Parallel()
	row := func(ns, name string, cells ...any) metav1.TableRow {
		meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"tier": ns + "-" + name}}}
		return metav1.TableRow{Cells: cells, Object: runtime.RawExtension{Object: meta, Raw: mustJSON(meta)}}
	}
	cols := []metav1.TableColumnDefinition{{Name: "Name"}, {Name: "Data"}, {Name: "Age"}, {Name: "Extra", Priority: 1}}
	table := ObjectTable([]MemberObjects{
		{Cluster: "a", Table: &metav1.Table{ColumnDefinitions: cols, Rows: []metav1.TableRow{row("shop", "cfg", "cfg", float64(2), "5m", "x")}}},
		{Cluster: "b", Table: &metav1.Table{ColumnDefinitions: cols[:2], Rows: []metav1.TableRow{row("shop", "cfg", "cfg", float64(3))}}},
		{Cluster: "c", Err: errors.New("down")},
	}, true)
	var out bytes.Buffer
	require.NoError(t, table.Write(&out, printers.TableOptions{}))
	assert.Equal(t, "CLUSTER   NAMESPACE   NAME   DATA   AGE\na         shop        cfg    2      5m\nb         shop        cfg    3      <none>\n", out.String())
	out.Reset()
	require.NoError(t, table.Write(&out, printers.TableOptions{Wide: true, ColumnLabels: []string{"tier"}}))
	assert.Equal(t, "CLUSTER   NAMESPACE   NAME   DATA   AGE      EXTRA    TIER\na         shop        cfg    2      5m       x        shop-cfg\nb         shop        cfg    3      <none>   <none>   shop-cfg\n", out.String())
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return data
}

// stuckClient is a member whose discovery answers only once release is
// closed, or never (its context ends first).
type stuckClient struct {
	members.Client
	release  <-chan struct{}
	timedOut *atomic.Int32
}

func (c stuckClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	select {
	case <-c.release:
		return nil, errors.New("connection reset by peer")
	case <-ctx.Done():
		c.timedOut.Add(1)
		return nil, ctx.Err()
	}
}

// TestResolveTypeAsksEveryMemberAtOnce: members that do not answer
// discovery do not make the one that does wait behind them, one timeout
// each: the answering member is asked while the others still hang (it
// releases them), and decides the type.
func TestResolveTypeAsksEveryMemberAtOnce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var timedOut atomic.Int32
	cmType := typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	good := memberstest.New(cmType)
	clients := func(name string) (members.Client, error) {
		if name == "c" {
			return releasing{good, release}, nil
		}
		return stuckClient{Client: good, release: release, timedOut: &timedOut}, nil
	}
	ms := []members.Member{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got, err := ResolveType(context.Background(), clients, ms, "configmaps", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "configmaps", got.Name())
	assert.Zero(t, timedOut.Load(), "a and b were released by c's discovery, not left to time out one after the other")
}

// releasing is a member that answers discovery, and then releases the
// stuck members.
type releasing struct {
	*memberstest.Fake
	release chan struct{}
}

func (r releasing) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	defer close(r.release)
	return r.Fake.Resources(ctx)
}

// hangingClient is a member whose discovery never answers; ended says how
// its request ended.
type hangingClient struct {
	members.Client
	started   *atomic.Bool
	startedCh chan struct{} // closed when it is asked, when set
	ended     chan error
}

func (c hangingClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	c.started.Store(true)
	if c.startedCh != nil {
		close(c.startedCh)
	}
	<-ctx.Done()
	c.ended <- ctx.Err()
	return nil, ctx.Err()
}

// TestResolveTypeDoesNotWaitForLaterMembers: once a member serves the
// type and every member before it in order has answered, the type is
// decided: a later member that never answers is cancelled, not waited for
// until its timeout (which the listing that follows would cost again).
func TestResolveTypeDoesNotWaitForLaterMembers(t *testing.T) {
	t.Parallel()
	cmType := typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	hung := hangingClient{Client: memberstest.New(cmType), started: &atomic.Bool{}, startedCh: make(chan struct{}), ended: make(chan error, 1)}
	clients := func(name string) (members.Client, error) {
		if name == "b" {
			return hung, nil
		}
		// a answers once b is asked, so that b's request is under way
		// when the type is decided
		return gated{Fake: memberstest.New(cmType), gate: hung.startedCh}, nil
	}
	got, err := ResolveType(context.Background(), clients, []members.Member{{Name: "a"}, {Name: "b"}}, "configmaps", time.Minute)
	require.NoError(t, err)
	assert.Equal(t, "configmaps", got.Name())
	require.True(t, hung.started.Load())
	select {
	case err := <-hung.ended:
		assert.ErrorIs(t, err, context.Canceled, "b's discovery was cancelled, not left to its minute")
	case <-time.After(30 * time.Second):
		t.Fatal("b's discovery was not cancelled")
	}
}

// gated is a member whose discovery answers once gate is closed.
type gated struct {
	*memberstest.Fake
	gate <-chan struct{}
}

func (g gated) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return g.Fake.Resources(ctx)
}

// partialClient is a member whose discovery failed for one group.
type partialClient struct{ *memberstest.Fake }

func (c partialClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	lists, _ := c.Fake.Resources(ctx)
	return lists, &members.DiscoveryError{Groups: map[string]error{"metrics.k8s.io/v1beta1": errors.New("the server is currently unable to handle the request")}}
}

// TestResolveTypeSaysWhatDiscoveryMissed: a type not found where an API
// group could not be discovered may be in that group, and the error says
// so, as enable's does; kubectl's NAME.GROUP forms resolve.
func TestResolveTypeSaysWhatDiscoveryMissed(t *testing.T) {
	t.Parallel()
	cmType := typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	clients := func(string) (members.Client, error) { return partialClient{memberstest.New(cmType)}, nil }
	ms := []members.Member{{Name: "a", Context: "ctx-a"}}
	_, err := ResolveType(context.Background(), clients, ms, "podmetrics", time.Minute)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cluster a: no API resource named "podmetrics"`)
	assert.Contains(t, err.Error(), "(or it is in an API group that could not be discovered: ")
	assert.Contains(t, err.Error(), "metrics.k8s.io/v1beta1")

	got, err := ResolveType(context.Background(), clients, ms, "configmap.v1", time.Minute)
	require.NoError(t, err, "a partial discovery still resolves what it holds")
	assert.Equal(t, "configmaps", got.Name())
}
