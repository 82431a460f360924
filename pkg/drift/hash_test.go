package drift

import (
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
)

func TestHashOfIgnoresKeyOrder(t *testing.T) {
	t.Parallel()
	a, err := Hash(map[string]any{"a": int64(1), "b": map[string]any{"x": "y", "z": true}})
	require.NoError(t, err)
	b, err := Hash(map[string]any{"b": map[string]any{"z": true, "x": "y"}, "a": int64(1)})
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.Len(t, a, 64)
}

func TestUpToDate(t *testing.T) {
	t.Parallel()
	desired := map[string]any{"apiVersion": "v1", "kind": "Service",
		"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"ports": []any{map[string]any{"port": int64(80)}}}}
	hash, err := Hash(desired)
	require.NoError(t, err)
	live := func(gen int64, recorded string, mutate func(map[string]any)) *unstructured.Unstructured {
		obj := map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "extra": "x"},
				"annotations": map[string]any{federation.HashAnnotation: hash}},
			"spec": map[string]any{"clusterIP": "10.0.0.1", "ports": []any{map[string]any{"port": int64(80), "nodePort": int64(30001), "protocol": "TCP"}}}}
		u := &unstructured.Unstructured{Object: obj}
		if gen != 0 {
			u.SetGeneration(gen)
		}
		if recorded != "" {
			ann := u.GetAnnotations()
			ann[federation.GenerationAnnotation] = recorded
			u.SetAnnotations(ann)
		}
		if mutate != nil {
			mutate(obj)
		}
		return u
	}
	tests := []struct {
		name string
		live *unstructured.Unstructured
		want bool
	}{
		{"same hash, fields the server added ignored", live(0, "", nil), true},
		{"other hash", live(0, "", func(o map[string]any) {
			o["metadata"].(map[string]any)["annotations"].(map[string]any)[federation.HashAnnotation] = "old"
		}), false},
		{"a field fedctl sets was changed", live(0, "", func(o map[string]any) {
			o["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"] = int64(81)
		}), false},
		{"a label fedctl sets was removed", live(0, "", func(o map[string]any) { delete(o["metadata"].(map[string]any)["labels"].(map[string]any), "app") }), false},
		{"generation as recorded", live(4, "4", func(o map[string]any) { o["spec"] = map[string]any{} }), true},
		{"generation moved since", live(5, "4", nil), false},
		{"generation never recorded", live(5, "", nil), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, UpToDate(tt.live, desired, hash, false))
		})
	}

	// With retainReplicas a moved generation is checked against content:
	// a field fedctl does not set (replicas, scaled by an autoscaler) may
	// have changed, one it sets may not.
	scaled := live(5, "4", func(o map[string]any) { o["spec"].(map[string]any)["replicas"] = int64(7) })
	assert.False(t, UpToDate(scaled, desired, hash, false))
	assert.True(t, UpToDate(scaled, desired, hash, true), "only what fedctl leaves alone changed")
	edited := live(5, "4", func(o map[string]any) {
		o["spec"].(map[string]any)["ports"].([]any)[0].(map[string]any)["port"] = int64(81)
	})
	assert.False(t, UpToDate(edited, desired, hash, true), "a field fedctl sets changed")
}

// A Secret written with stringData is read back with data only: its
// values are compared base64-encoded, so an edit of data shows.
func TestUpToDateSecretStringData(t *testing.T) {
	t.Parallel()
	desired := map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": "creds"},
		"stringData": map[string]any{"user": "admin"}}
	hash, err := Hash(desired)
	require.NoError(t, err)
	live := func(data map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
			"metadata": map[string]any{"name": "creds", "annotations": map[string]any{federation.HashAnnotation: hash}},
			"data":     data}}
	}
	assert.True(t, UpToDate(live(map[string]any{"user": "YWRtaW4=", "other": "eA=="}), desired, hash, false), "admin, base64-encoded")
	assert.False(t, UpToDate(live(map[string]any{"user": "cm9vdA=="}), desired, hash, false), "edited to root")
	assert.False(t, UpToDate(live(nil), desired, hash, false), "removed")
}

func TestTransient(t *testing.T) {
	t.Parallel()
	gr := schema.GroupResource{Resource: "configmaps"}
	tests := []struct {
		err  error
		want bool
	}{
		{apierrors.NewTooManyRequests("x", 1), true},
		{apierrors.NewInternalError(errors.New("x")), true},
		{apierrors.NewServiceUnavailable("x"), true},
		{apierrors.NewServerTimeout(gr, "get", 1), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, false},
		{apierrors.NewConflict(gr, "x", errors.New("x")), false},
		{apierrors.NewNotFound(gr, "x"), false},
		{apierrors.NewBadRequest("x"), false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, members.Transient(tt.err), "%v", tt.err)
	}
}
