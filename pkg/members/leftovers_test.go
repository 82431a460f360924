package members_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// TestManagedObjectsOfANamespaceScopedFederation: the managed-by label says
// fedctl, not which federation; a namespace-scoped federation's leftovers
// are those in its namespace, never another team's elsewhere, and no
// cluster-scoped object is its.
func TestManagedObjectsOfANamespaceScopedFederation(t *testing.T) {
	configMaps := typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	roles := typeconfig.Type{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Plural: "clusterroles", Scope: typeconfig.Cluster}
	f := memberstest.New(configMaps, roles)
	managed := func(kind, ns, name string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{
			"name": name, "namespace": ns, "labels": map[string]any{federation.ManagedByLabel: federation.ManagedByValue}}}}
	}
	f.Put(memberstest.KeyOf(memberstest.MappingOf(configMaps), "team-a", "mine"), managed("ConfigMap", "team-a", "mine"))
	f.Put(memberstest.KeyOf(memberstest.MappingOf(configMaps), "team-b", "theirs"), managed("ConfigMap", "team-b", "theirs"))
	f.Put(memberstest.KeyOf(memberstest.MappingOf(roles), "", "viewer"), managed("ClusterRole", "", "viewer"))

	scoped, err := members.ManagedObjects(context.Background(), f, "team-a")
	require.NoError(t, err)
	assert.Equal(t, []members.ResourceCount{{Resource: "configmaps", Namespaced: true, Count: 1, Names: []string{"team-a/mine"}}}, scoped)

	all, err := members.ManagedObjects(context.Background(), f, "")
	require.NoError(t, err)
	assert.Equal(t, []members.ResourceCount{
		{Resource: "clusterroles.rbac.authorization.k8s.io", Count: 1, Names: []string{"viewer"}},
		{Resource: "configmaps", Namespaced: true, Count: 2, Names: []string{"team-a/mine", "team-b/theirs"}},
	}, all, "a cluster-wide federation's: every namespace")
}
