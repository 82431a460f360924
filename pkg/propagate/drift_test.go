package propagate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
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
	labels[ApplySetPartOfLabel] = "applyset-abc-v1"
	u.SetLabels(labels)
	hash, err := hashOf(applied)
	require.NoError(t, err)
	live := u.DeepCopy()
	ann := live.GetAnnotations()
	ann[federation.HashAnnotation] = hash
	live.SetAnnotations(ann)

	reason, err := Drift(target, live)
	require.NoError(t, err)
	assert.Empty(t, reason, "as applied with the set")

	unstructured.SetNestedField(live.Object, "edited", "data", "k")
	reason, err = Drift(target, live)
	require.NoError(t, err)
	assert.NotEmpty(t, reason, "an edit still shows")
}
