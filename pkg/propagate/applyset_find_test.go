package propagate

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
)

// TestFindApplySet: the parents of a set are found by kind and name in
// every namespace; a Secret of that name that is no parent, or carries the
// ID of a set in another namespace, is not one; a member that is down is
// reported, not counted.
func TestFindApplySet(t *testing.T) {
	t.Parallel()
	set := ApplySet{Resource: "secrets", Name: "shop"}
	secret := func(f *memberstest.Fake, namespace string, id string) {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("v1")
		obj.SetKind("Secret")
		obj.SetNamespace(namespace)
		obj.SetName(set.Name)
		if id != "" {
			obj.SetLabels(map[string]string{ApplySetIDLabel: id})
		}
		f.Put(memberstest.KeyOf(set.mapping(), namespace, set.Name), obj)
	}
	idIn := func(ns string) string { s := set; s.Namespace = ns; return s.ID() }
	c1, c2, c3, c4 := memberstest.New(), memberstest.New(), memberstest.New(), memberstest.New()
	secret(c1, "shop", idIn("shop"))
	secret(c2, "shop", idIn("shop"))
	secret(c2, "web", idIn("web"))
	secret(c2, "plain", "")            // a Secret of that name, no parent
	secret(c4, "copied", idIn("shop")) // the ID of the set in shop: not this namespace's parent
	c3.SetDown(errors.New("connection refused"))
	fakes := map[string]*memberstest.Fake{"c1": c1, "c2": c2, "c3": c3, "c4": c4}
	clients := func(name string) (members.Client, error) { return fakes[name], nil }

	found, failed := FindApplySet(context.Background(), set, []string{"c1", "c2", "c3", "c4"}, clients, time.Second)
	assert.Equal(t, map[string][]string{"shop": {"c1", "c2"}, "web": {"c2"}}, found)
	require.Len(t, failed, 1)
	assert.ErrorContains(t, failed["c3"], "connection refused")

	cm := ApplySet{Resource: "configmaps", Name: "shop"}
	found, _ = FindApplySet(context.Background(), cm, []string{"c1", "c2"}, clients, time.Second)
	assert.Empty(t, found, "a ConfigMap parent is another set")
}

// TestRecordedDNSContexts: the DNS cluster each member's parent records,
// with the members that say so; a parent that records none, a missing
// parent and one of another set say nothing; a member that is down is
// reported.
func TestRecordedDNSContexts(t *testing.T) {
	t.Parallel()
	set := ApplySet{Resource: "secrets", Name: "shop", Namespace: "shop"}
	parent := func(f *memberstest.Fake, id, dnsContext string) {
		obj := &unstructured.Unstructured{}
		obj.SetAPIVersion("v1")
		obj.SetKind("Secret")
		obj.SetNamespace(set.Namespace)
		obj.SetName(set.Name)
		obj.SetLabels(map[string]string{ApplySetIDLabel: id})
		if dnsContext != "" {
			obj.SetAnnotations(map[string]string{ApplySetDNSContextAnnotation: dnsContext})
		}
		f.Put(memberstest.KeyOf(set.mapping(), set.Namespace, set.Name), obj)
	}
	fakes := map[string]*memberstest.Fake{}
	for _, c := range []string{"a", "b", "c", "d", "e", "f"} {
		fakes[c] = memberstest.New()
	}
	parent(fakes["a"], set.ID(), "dns")
	parent(fakes["b"], set.ID(), "dns")
	parent(fakes["c"], set.ID(), "")      // records none
	parent(fakes["d"], "applyset-x", "x") // another set's
	// e holds no parent
	fakes["f"].SetDown(errors.New("connection refused"))
	clients := func(c string) (members.Client, error) { return fakes[c], nil }

	found, failed := RecordedDNSContexts(context.Background(), set, []string{"f", "e", "d", "c", "b", "a"}, clients, time.Second)
	assert.Equal(t, map[string][]string{"dns": {"a", "b"}}, found)
	require.Len(t, failed, 1)
	assert.ErrorContains(t, failed["f"], "connection refused")
}
