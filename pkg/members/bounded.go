package members

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Bounded returns c with every request ended at its context's deadline
// (Await), even where no context reaches: an exec credential plugin that
// hangs holds a request of c for as long as it runs. The per-member loops
// bound a member's whole work with Gather; Bounded is for a client used
// outside them, one request at a time: the DNS cluster's.
func Bounded(c Client) Client {
	if _, ok := c.(bounded); ok || c == nil {
		return c
	}
	return bounded{c}
}

type bounded struct{ Client }

// Unwrap is the client Bounded wrapped: the run's client of a member, with
// its transport and discovery cache, when the DNS cluster is a member.
func (b bounded) Unwrap() Client { return b.Client }

// result is one request's outcome, handed out of Await whole.
type result[T any] struct {
	v   T
	err error
}

// within runs fn as Await does and returns its outcome, or Await's error
// when it gave up on it.
func within[T any](ctx context.Context, fn func() (T, error)) (T, error) {
	r, err := Await(ctx, func() result[T] {
		v, err := fn()
		return result[T]{v, err}
	})
	if err != nil {
		var zero T
		return zero, err
	}
	return r.v, r.err
}

func (b bounded) Map(ctx context.Context, gvk schema.GroupVersionKind) (Mapping, error) {
	return within(ctx, func() (Mapping, error) { return b.Client.Map(ctx, gvk) })
}

func (b bounded) Resources(ctx context.Context) ([]*metav1.APIResourceList, error) {
	return within(ctx, func() ([]*metav1.APIResourceList, error) { return b.Client.Resources(ctx) })
}

func (b bounded) List(ctx context.Context, m Mapping, opts ListOptions) ([]unstructured.Unstructured, error) {
	return within(ctx, func() ([]unstructured.Unstructured, error) { return b.Client.List(ctx, m, opts) })
}

func (b bounded) ListTable(ctx context.Context, m Mapping, opts ListOptions) (*metav1.Table, error) {
	return within(ctx, func() (*metav1.Table, error) { return b.Client.ListTable(ctx, m, opts) })
}

func (b bounded) ListMetadata(ctx context.Context, m Mapping, opts ListOptions) ([]metav1.PartialObjectMetadata, error) {
	return within(ctx, func() ([]metav1.PartialObjectMetadata, error) { return b.Client.ListMetadata(ctx, m, opts) })
}

func (b bounded) NamespaceContents(ctx context.Context, namespace string) ([]unstructured.Unstructured, error) {
	return within(ctx, func() ([]unstructured.Unstructured, error) { return b.Client.NamespaceContents(ctx, namespace) })
}

func (b bounded) Get(ctx context.Context, m Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	return within(ctx, func() (*unstructured.Unstructured, error) { return b.Client.Get(ctx, m, namespace, name) })
}

func (b bounded) Apply(ctx context.Context, m Mapping, obj *unstructured.Unstructured, opts WriteOptions) (*unstructured.Unstructured, error) {
	return within(ctx, func() (*unstructured.Unstructured, error) { return b.Client.Apply(ctx, m, obj, opts) })
}

func (b bounded) MergePatch(ctx context.Context, m Mapping, namespace, name string, patch []byte, opts WriteOptions) (*unstructured.Unstructured, error) {
	return within(ctx, func() (*unstructured.Unstructured, error) {
		return b.Client.MergePatch(ctx, m, namespace, name, patch, opts)
	})
}

func (b bounded) Delete(ctx context.Context, m Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	_, err := within(ctx, func() (struct{}, error) { return struct{}{}, b.Client.Delete(ctx, m, namespace, name, opts) })
	return err
}
