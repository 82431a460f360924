package members

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// flaky is a Client whose requests fail with errs, one per call, then
// succeed; it counts the calls of each method.
type flaky struct {
	Client // nil: a method not written here panics
	errs   []error
	calls  map[string]int
}

func (f *flaky) next(method string) error {
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[method]++
	if len(f.errs) == 0 {
		return nil
	}
	err := f.errs[0]
	f.errs = f.errs[1:]
	return err
}

func (f *flaky) Map(context.Context, schema.GroupVersionKind) (Mapping, error) {
	return Mapping{}, f.next("Map")
}

func (f *flaky) List(context.Context, Mapping, ListOptions) ([]unstructured.Unstructured, error) {
	return []unstructured.Unstructured{{}}, f.next("List")
}

func (f *flaky) ListTable(context.Context, Mapping, ListOptions) (*metav1.Table, error) {
	return &metav1.Table{}, f.next("ListTable")
}

func (f *flaky) ListMetadata(context.Context, Mapping, ListOptions) ([]metav1.PartialObjectMetadata, error) {
	return []metav1.PartialObjectMetadata{{}}, f.next("ListMetadata")
}

func (f *flaky) NamespaceContents(context.Context, string) ([]unstructured.Unstructured, error) {
	return []unstructured.Unstructured{{}}, f.next("NamespaceContents")
}

func (f *flaky) Get(context.Context, Mapping, string, string) (*unstructured.Unstructured, error) {
	return &unstructured.Unstructured{}, f.next("Get")
}

func (f *flaky) Apply(context.Context, Mapping, *unstructured.Unstructured, WriteOptions) (*unstructured.Unstructured, error) {
	return &unstructured.Unstructured{}, f.next("Apply")
}

func (f *flaky) MergePatch(context.Context, Mapping, string, string, []byte, WriteOptions) (*unstructured.Unstructured, error) {
	return &unstructured.Unstructured{}, f.next("MergePatch")
}

func (f *flaky) Delete(context.Context, Mapping, string, string, metav1.DeleteOptions) error {
	return f.next("Delete")
}

// TestRetrying: every read and write of a member's client is sent again
// after a transient error (a 503, a reset), within the context's time, and
// returns what the try that succeeded returned; a final error is returned
// at once; Map is the client's own (discovery retries by itself); a delete
// without a precondition is never sent twice.
func TestRetrying(t *testing.T) {
	t.Parallel()
	uid := types.UID("u")
	withUID := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
	requests := map[string]func(Client, context.Context) (any, error){
		"List": func(c Client, ctx context.Context) (any, error) { return c.List(ctx, Mapping{}, ListOptions{}) },
		"ListTable": func(c Client, ctx context.Context) (any, error) {
			return c.ListTable(ctx, Mapping{}, ListOptions{})
		},
		"ListMetadata": func(c Client, ctx context.Context) (any, error) {
			return c.ListMetadata(ctx, Mapping{}, ListOptions{})
		},
		"Get": func(c Client, ctx context.Context) (any, error) { return c.Get(ctx, Mapping{}, "ns", "x") },
		"Apply": func(c Client, ctx context.Context) (any, error) {
			return c.Apply(ctx, Mapping{}, &unstructured.Unstructured{}, WriteOptions{})
		},
		"MergePatch": func(c Client, ctx context.Context) (any, error) {
			return c.MergePatch(ctx, Mapping{}, "ns", "x", []byte("{}"), WriteOptions{})
		},
		"Delete": func(c Client, ctx context.Context) (any, error) {
			return nil, c.Delete(ctx, Mapping{}, "ns", "x", withUID)
		},
	}
	unavailable := apierrors.NewServiceUnavailable("restarting")
	for method, request := range requests {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			stats := &RetryStats{}
			ctx = WithRetryStats(ctx, stats)

			f := &flaky{errs: []error{unavailable, unavailable}}
			out, err := request(Retrying(f), ctx)
			require.NoError(t, err, "two 503s are ridden out")
			assert.Equal(t, 3, f.calls[method])
			assert.EqualValues(t, 2, stats.Retries.Load())
			if method != "Delete" {
				assert.NotNil(t, out, "the result of the try that succeeded")
			}

			f = &flaky{errs: []error{apierrors.NewForbidden(schema.GroupResource{Resource: "x"}, "x", nil)}}
			_, err = request(Retrying(f), ctx)
			assert.True(t, apierrors.IsForbidden(err), "a 403 is final: %v", err)
			assert.Equal(t, 1, f.calls[method])
		})
	}

	t.Run("a delete without a precondition is sent once", func(t *testing.T) {
		t.Parallel()
		f := &flaky{errs: []error{unavailable}}
		err := Retrying(f).Delete(context.Background(), Mapping{}, "ns", "x", metav1.DeleteOptions{})
		assert.True(t, apierrors.IsServiceUnavailable(err))
		assert.Equal(t, 1, f.calls["Delete"], "a second delete could remove an object created in between")
	})
	t.Run("Map is not retried again", func(t *testing.T) {
		t.Parallel()
		f := &flaky{errs: []error{unavailable}}
		_, err := Retrying(f).Map(context.Background(), schema.GroupVersionKind{Kind: "ConfigMap"})
		assert.Error(t, err)
		assert.Equal(t, 1, f.calls["Map"])
	})
	t.Run("NamespaceContents is not retried again", func(t *testing.T) {
		t.Parallel()
		f := &flaky{errs: []error{unavailable}}
		_, err := Retrying(f).NamespaceContents(context.Background(), "ns")
		assert.Error(t, err)
		assert.Equal(t, 1, f.calls["NamespaceContents"], "the client retries each of its requests itself")
	})
	t.Run("wrapping twice retries once", func(t *testing.T) {
		t.Parallel()
		c := Retrying(&flaky{})
		assert.Equal(t, c, Retrying(c))
	})
	t.Run("the context's time bounds the tries", func(t *testing.T) {
		t.Parallel()
		errs := make([]error, 1000)
		for i := range errs {
			errs[i] = unavailable
		}
		f := &flaky{errs: errs}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := Retrying(f).Get(ctx, Mapping{}, "ns", "x")
		assert.True(t, apierrors.IsServiceUnavailable(err), "the last error, not the context's: %v", err)
		assert.Less(t, f.calls["Get"], 10)
		assert.Greater(t, f.calls["Get"], 1)
	})
}
