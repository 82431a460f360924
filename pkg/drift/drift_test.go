package drift

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// What apply --prune --applyset writes carries the set's label, in the
// object and in its hash; Drift must see that as what apply would send.
func TestDriftOfAnApplySetMember(t *testing.T) {
	t.Parallel()
	o, obj := object(cmType, "shop", "cfg", map[string]any{"data": map[string]any{"k": "v"}})
	target := render.Target{Cluster: "m", Type: cmType, Object: obj, Source: o}

	applied := runtime.DeepCopyJSON(obj)
	u := &unstructured.Unstructured{Object: applied}
	labels := u.GetLabels()
	labels[federation.ApplySetPartOfLabel] = "applyset-abc-v1"
	u.SetLabels(labels)
	hash, err := Hash(applied)
	require.NoError(t, err)
	live := u.DeepCopy()
	ann := live.GetAnnotations()
	ann[federation.HashAnnotation] = hash
	live.SetAnnotations(ann)

	reason, err := Check(target, live)
	require.NoError(t, err)
	assert.Empty(t, reason, "as applied with the set")

	unstructured.SetNestedField(live.Object, "edited", "data", "k")
	reason, err = Check(target, live)
	require.NoError(t, err)
	assert.NotEmpty(t, reason, "an edit still shows")
}

var cmType = typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}

// object returns a federated object of type t and its member object, as
// render makes it.
func object(t typeconfig.Type, ns, name string, body map[string]any) (*federation.Object, map[string]any) {
	o := &federation.Object{}
	o.Kind, o.Namespace, o.Name = t.FederatedKind(), ns, name
	obj := runtime.DeepCopyJSON(body)
	meta := map[string]any{"name": name, "namespace": ns,
		"labels":      map[string]any{federation.ManagedLabel: "true", federation.ManagedByLabel: federation.ManagedByValue},
		"annotations": map[string]any{federation.SourceAnnotation: o.SourceRef()}}
	obj["metadata"], obj["apiVersion"], obj["kind"] = meta, t.APIVersion(), t.Kind
	return o, obj
}

// TestCheckWithoutHash: an object another tool applied from render's
// output has fedctl's markers but no applied hash; it is judged by its
// content, server-added fields left aside.
func TestCheckWithoutHash(t *testing.T) {
	t.Parallel()
	o, obj := object(cmType, "shop", "cfg", map[string]any{"data": map[string]any{"k": "v"}})
	target := render.Target{Cluster: "m", Type: cmType, Object: obj, Source: o}

	live := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
	live.SetUID("1234")
	live.SetResourceVersion("7")
	reason, err := Check(target, live)
	require.NoError(t, err)
	assert.Empty(t, reason, "as render wrote it, plus what the server adds")

	for name, edit := range map[string]func(u *unstructured.Unstructured){
		"a value":      func(u *unstructured.Unstructured) { _ = unstructured.SetNestedField(u.Object, "w", "data", "k") },
		"a field gone": func(u *unstructured.Unstructured) { unstructured.RemoveNestedField(u.Object, "data", "k") },
		"a label": func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue})
		},
	} {
		changed := live.DeepCopy()
		edit(changed)
		reason, err := Check(target, changed)
		require.NoError(t, err)
		assert.Contains(t, reason, "it differs from what fedctl would apply", name)
	}
}
