package apply

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// okApplier is a member that serves every type, holds nothing and accepts
// every write.
type okApplier struct{}

var _ propagate.Applier = okApplier{}

func (okApplier) Map(gvk schema.GroupVersionKind) (propagate.Mapping, error) {
	return propagate.Mapping{Resource: gvk.GroupVersion().WithResource("things")}, nil
}
func (okApplier) Reset() {}
func (okApplier) List(context.Context, propagate.Mapping, string) ([]unstructured.Unstructured, error) {
	return nil, nil
}
func (okApplier) ListMetadata(context.Context, propagate.Mapping, string) ([]metav1.PartialObjectMetadata, error) {
	return nil, nil
}
func (okApplier) NamespaceContents(context.Context, string) ([]unstructured.Unstructured, error) {
	return nil, nil
}
func (okApplier) Get(_ context.Context, m propagate.Mapping, _, name string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewNotFound(m.Resource.GroupResource(), name)
}
func (okApplier) Apply(_ context.Context, _ propagate.Mapping, obj *unstructured.Unstructured, _ propagate.WriteOptions) (*unstructured.Unstructured, error) {
	return obj, nil
}
func (okApplier) MergePatch(context.Context, propagate.Mapping, string, string, []byte, propagate.WriteOptions) (*unstructured.Unstructured, error) {
	return &unstructured.Unstructured{Object: map[string]any{}}, nil
}
func (okApplier) Delete(context.Context, propagate.Mapping, string, string, metav1.DeleteOptions) error {
	return nil
}
