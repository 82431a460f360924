package inventory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

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

// TestListAsksEveryMemberAtOnce: members that do not answer discovery do
// not make the one that does wait behind them, one timeout each: the
// answering member is asked while the others still hang (it releases
// them), decides the type and is listed.
func TestListAsksEveryMemberAtOnce(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var timedOut atomic.Int32
	good := memberstest.New(cmType)
	clients := func(name string) (members.Client, error) {
		if name == "c" {
			return releasing{good, release}, nil
		}
		return stuckClient{Client: good, release: release, timedOut: &timedOut}, nil
	}
	ms := []members.Member{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	got, list, err := List(context.Background(), ListInput{Clients: clients, Members: ms, TypeName: "configmaps", Read: ReadObjects, Timeout: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, "configmaps", got.Name())
	assert.Zero(t, timedOut.Load(), "a and b were released by c's discovery, not left to time out one after the other")
	require.Len(t, list, 3)
	for _, mo := range list[:2] {
		assert.ErrorContains(t, mo.Err, "connection reset by peer", mo.Cluster)
	}
	assert.NoError(t, list[2].Err)
	assert.Equal(t, "c", list[2].Cluster)
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

// hangingClient is a member whose discovery never answers.
type hangingClient struct{ members.Client }

func (c hangingClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestListHangingMemberFailsAlone: a member whose discovery never answers
// fails at its timeout; the members that answer are listed all the same.
func TestListHangingMemberFailsAlone(t *testing.T) {
	t.Parallel()
	a := memberstest.New(cmType)
	a.Put(managed(cmType, "shop", "settings"))
	clients := func(name string) (members.Client, error) {
		if name == "b" {
			return hangingClient{memberstest.New(cmType)}, nil
		}
		return a, nil
	}
	got, list, err := List(context.Background(), ListInput{Clients: clients, Members: []members.Member{{Name: "a"}, {Name: "b"}},
		TypeName: "configmap", Read: ReadObjects, Timeout: 200 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, "configmaps", got.Name())
	require.NoError(t, list[0].Err)
	assert.Equal(t, []string{"shop/settings"}, names(list[0]))
	assert.ErrorContains(t, list[1].Err, "cluster b")
	assert.ErrorContains(t, list[1].Err, "did not answer in time")
}

// partialClient is a member whose discovery failed for the group versions
// in failed.
type partialClient struct {
	*memberstest.Fake
	failed []string
}

func (c partialClient) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	lists, _ := c.Fake.Resources(ctx)
	de := &members.DiscoveryError{Groups: map[string]error{}}
	for _, gv := range c.failed {
		de.Groups[gv] = errors.New("the server is currently unable to handle the request")
	}
	return lists, de
}

// TestListSaysWhatDiscoveryMissed: a type not found where an API group
// could not be discovered may be in that group, and the error says so, as
// enable's does; kubectl's NAME.GROUP forms resolve.
func TestListSaysWhatDiscoveryMissed(t *testing.T) {
	t.Parallel()
	clients := func(string) (members.Client, error) {
		return partialClient{memberstest.New(cmType), []string{"metrics.k8s.io/v1beta1"}}, nil
	}
	ms := []members.Member{{Name: "a", Context: "ctx-a"}}
	_, _, err := List(context.Background(), ListInput{Clients: clients, Members: ms, TypeName: "podmetrics", Read: ReadObjects})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cluster a: no API resource named "podmetrics"`)
	assert.Contains(t, err.Error(), "(or it is in an API group that could not be discovered: ")
	assert.Contains(t, err.Error(), "metrics.k8s.io/v1beta1")
	assert.Equal(t, 1, strings.Count(err.Error(), "cluster a"), "the member is named once")

	got, _, err := List(context.Background(), ListInput{Clients: clients, Members: ms, TypeName: "configmap.v1", Read: ReadObjects})
	require.NoError(t, err, "a partial discovery still resolves what it holds")
	assert.Equal(t, "configmaps", got.Name())
}

var (
	cmType       = typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	widgetV1     = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	widgetV1beta = typeconfig.Type{Group: "example.com", Version: "v1beta1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	otherWidget  = typeconfig.Type{Group: "other.io", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
)

// managed is the key and an object of type t that fedctl manages.
func managed(t typeconfig.Type, namespace, name string) (memberstest.Key, *unstructured.Unstructured) {
	obj := &unstructured.Unstructured{}
	obj.SetAPIVersion(schema.GroupVersion{Group: t.Group, Version: t.Version}.String())
	obj.SetKind(t.Kind)
	obj.SetNamespace(namespace)
	obj.SetName(name)
	obj.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue})
	return memberstest.KeyOf(memberstest.MappingOf(t), namespace, name), obj
}

// names are the namespace/name of what mo lists.
func names(mo MemberObjects) []string {
	var out []string
	for _, obj := range mo.Objects {
		out = append(out, obj.GetNamespace()+"/"+obj.GetName())
	}
	return out
}

// TestListEachMemberAtItsVersion: each member is listed at the version it
// serves; a member without the type (a CRD installed on some members
// only) holds none of its objects and has not failed; a member that could
// not discover the type's group has, as fedctl cannot tell what it holds.
func TestListEachMemberAtItsVersion(t *testing.T) {
	t.Parallel()
	a, b := memberstest.New(cmType, widgetV1), memberstest.New(cmType, widgetV1beta)
	a.Put(managed(widgetV1, "shop", "w1"))
	b.Put(managed(widgetV1beta, "shop", "w2"))
	fakes := map[string]members.Client{
		"a": a, "b": b,
		"c": memberstest.New(cmType),
		"d": partialClient{memberstest.New(cmType), []string{"example.com/v1"}},
		"e": partialClient{memberstest.New(cmType), []string{"metrics.k8s.io/v1beta1"}},
	}
	clients := func(name string) (members.Client, error) { return fakes[name], nil }
	ms := []members.Member{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}, {Name: "e"}}
	for _, read := range []Read{ReadObjects, ReadNames} {
		got, list, err := List(context.Background(), ListInput{Clients: clients, Members: ms, TypeName: "widgets", Read: read})
		require.NoError(t, err)
		assert.Equal(t, widgetV1, got, "decided by the first member")
		require.Len(t, list, 5)
		assert.Equal(t, "v1", list[0].Type.Version)
		assert.Equal(t, []string{"shop/w1"}, names(list[0]))
		assert.Equal(t, "v1beta1", list[1].Type.Version, "b is read at the version it serves")
		assert.Equal(t, []string{"shop/w2"}, names(list[1]))
		for _, mo := range list[:3] {
			assert.NoError(t, mo.Err, mo.Cluster)
		}
		assert.True(t, list[2].NotServed, "c has no CRD for widgets")
		assert.False(t, list[3].NotServed)
		assert.ErrorContains(t, list[3].Err, "cluster d: widgets.example.com may be there, in API group example.com, which could not be discovered: example.com/v1 (")
		assert.Equal(t, 1, strings.Count(list[3].Err.Error(), "cluster d"), "the member is named once")
		assert.True(t, list[4].NotServed, "e missed another group only")
		assert.NoError(t, list[4].Err)
	}
}

// TestListNameMeansAnotherTypeElsewhere: the first member decides which
// type the name means, as kubectl resolves against one cluster; a member
// where the name is ambiguous, or means another group's type, is listed
// at the decided type's group and resource, or holds none of it.
func TestListNameMeansAnotherTypeElsewhere(t *testing.T) {
	t.Parallel()
	a := memberstest.New(widgetV1)
	b := memberstest.New(widgetV1, otherWidget) // "widget" is ambiguous here
	c := memberstest.New(otherWidget)           // and another type here
	b.Put(managed(widgetV1, "shop", "ours"))
	b.Put(managed(otherWidget, "shop", "theirs"))
	c.Put(managed(otherWidget, "shop", "theirs"))
	fakes := map[string]members.Client{"a": a, "b": b, "c": c}
	clients := func(name string) (members.Client, error) { return fakes[name], nil }
	got, list, err := List(context.Background(), ListInput{Clients: clients, Members: []members.Member{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		TypeName: "widget", Read: ReadObjects})
	require.NoError(t, err)
	assert.Equal(t, widgetV1, got)
	require.NoError(t, list[1].Err)
	assert.Equal(t, widgetV1, list[1].Type)
	assert.Equal(t, []string{"shop/ours"}, names(list[1]))
	assert.True(t, list[2].NotServed)
	assert.Empty(t, list[2].Objects, "c's other.io widget is not the type asked for")

	_, _, err = List(context.Background(), ListInput{Clients: clients, Members: []members.Member{{Name: "b"}, {Name: "a"}},
		TypeName: "widget", Read: ReadObjects})
	var amb *typeconfig.AmbiguousError
	assert.ErrorAs(t, err, &amb, "the first member decides, and finds it ambiguous")
}
