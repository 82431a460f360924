package apply

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/members"
)

// okClient is a member that serves every type, holds nothing and accepts
// every write.
type okClient struct{}

var _ members.Client = okClient{}

func (okClient) Map(_ context.Context, gvk schema.GroupVersionKind) (members.Mapping, error) {
	return members.Mapping{Resource: gvk.GroupVersion().WithResource("things")}, nil
}
func (okClient) Reset()                                                       {}
func (okClient) Server() string                                               { return "https://ok.example" }
func (okClient) Resources(context.Context) ([]*metav1.APIResourceList, error) { return nil, nil }
func (okClient) ListTable(context.Context, members.Mapping, members.ListOptions) (*metav1.Table, error) {
	return &metav1.Table{}, nil
}
func (okClient) List(context.Context, members.Mapping, members.ListOptions) ([]unstructured.Unstructured, error) {
	return nil, nil
}
func (okClient) ListMetadata(context.Context, members.Mapping, members.ListOptions) ([]metav1.PartialObjectMetadata, error) {
	return nil, nil
}
func (okClient) NamespaceContents(context.Context, string) ([]unstructured.Unstructured, error) {
	return nil, nil
}
func (okClient) Get(_ context.Context, m members.Mapping, _, name string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewNotFound(m.Resource.GroupResource(), name)
}
func (okClient) Apply(_ context.Context, _ members.Mapping, obj *unstructured.Unstructured, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	return obj, nil
}
func (okClient) MergePatch(context.Context, members.Mapping, string, string, []byte, members.WriteOptions) (*unstructured.Unstructured, error) {
	return &unstructured.Unstructured{Object: map[string]any{}}, nil
}
func (okClient) Delete(context.Context, members.Mapping, string, string, metav1.DeleteOptions) error {
	return nil
}
