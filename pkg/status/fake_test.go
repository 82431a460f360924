package status

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// fakeMember is one member cluster in memory, enough for propagate.Run to
// apply to it and for Read to read it back. Objects with a spec get a
// generation that moves on every apply that changes their spec.
type fakeMember struct {
	mu      sync.Mutex
	served  map[schema.GroupVersionKind]members.Mapping
	objects map[string]*unstructured.Unstructured // resource/namespace/name
	down    error
	lists   int
}

func newFakeMember(types ...typeconfig.Type) *fakeMember {
	f := &fakeMember{served: map[schema.GroupVersionKind]members.Mapping{}, objects: map[string]*unstructured.Unstructured{}}
	for _, t := range types {
		f.served[gvkOf(t)] = members.Mapping{Resource: schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Plural}, Namespaced: t.Namespaced()}
	}
	return f
}

var _ members.Client = (*fakeMember)(nil)

func key(m members.Mapping, namespace, name string) string {
	return m.Resource.Resource + "/" + namespace + "/" + name
}

func (f *fakeMember) Map(_ context.Context, gvk schema.GroupVersionKind) (members.Mapping, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return members.Mapping{}, f.down
	}
	m, ok := f.served[gvk]
	if !ok {
		return members.Mapping{}, &members.NotServedError{GVK: gvk}
	}
	return m, nil
}

func (f *fakeMember) Reset() {}

func (f *fakeMember) Server() string { return "https://fake.example" }

func (f *fakeMember) Resources(context.Context) ([]*metav1.APIResourceList, error) {
	return nil, errors.New("not used by status")
}

func (f *fakeMember) ListTable(context.Context, members.Mapping, members.ListOptions) (*metav1.Table, error) {
	return nil, errors.New("not used by status")
}

func (f *fakeMember) List(_ context.Context, m members.Mapping, opts members.ListOptions) ([]unstructured.Unstructured, error) {
	selector := opts.LabelSelector
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	f.lists++
	sel, err := labels.Parse(selector)
	if err != nil {
		return nil, err
	}
	var out []unstructured.Unstructured
	for k, obj := range f.objects {
		if len(k) > len(m.Resource.Resource) && k[:len(m.Resource.Resource)+1] == m.Resource.Resource+"/" && sel.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, *obj.DeepCopy())
		}
	}
	return out, nil
}

func (f *fakeMember) ListMetadata(_ context.Context, m members.Mapping, opts members.ListOptions) ([]metav1.PartialObjectMetadata, error) {
	namespace := opts.Namespace
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	prefix := m.Resource.Resource + "/"
	if namespace != "" {
		prefix += namespace + "/"
	}
	var out []metav1.PartialObjectMetadata
	for k, u := range f.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: u.GetNamespace(), Name: u.GetName(), Labels: u.GetLabels(), Annotations: u.GetAnnotations(), Generation: u.GetGeneration()}})
		}
	}
	return out, nil
}

func (f *fakeMember) NamespaceContents(context.Context, string) ([]unstructured.Unstructured, error) {
	return nil, errors.New("not used by status")
}

func (f *fakeMember) Get(_ context.Context, m members.Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	obj, ok := f.objects[key(m, namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(m.Resource.GroupResource(), name)
	}
	return obj.DeepCopy(), nil
}

func (f *fakeMember) Apply(_ context.Context, m members.Mapping, obj *unstructured.Unstructured, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := key(m, obj.GetNamespace(), obj.GetName())
	stored := obj.DeepCopy()
	if _, hasSpec := obj.Object["spec"]; hasSpec {
		gen := int64(1)
		if old, ok := f.objects[k]; ok {
			gen = old.GetGeneration()
			oldSpec, _ := json.Marshal(old.Object["spec"])
			newSpec, _ := json.Marshal(obj.Object["spec"])
			if string(oldSpec) != string(newSpec) {
				gen++
			}
			stored.Object["status"] = old.Object["status"]
		}
		stored.SetGeneration(gen)
	}
	f.objects[k] = stored
	return stored.DeepCopy(), nil
}

func (f *fakeMember) MergePatch(_ context.Context, m members.Mapping, namespace, name string, patch []byte, _ members.WriteOptions) (*unstructured.Unstructured, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, ok := f.objects[key(m, namespace, name)]
	if !ok {
		return nil, apierrors.NewNotFound(m.Resource.GroupResource(), name)
	}
	var p struct {
		Metadata struct {
			Annotations map[string]*string `json:"annotations"`
			Labels      map[string]*string `json:"labels"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, err
	}
	ann, lab := obj.GetAnnotations(), obj.GetLabels()
	for k, v := range p.Metadata.Annotations {
		if v == nil {
			delete(ann, k)
		} else {
			ann[k] = *v
		}
	}
	for k, v := range p.Metadata.Labels {
		if v == nil {
			delete(lab, k)
		} else {
			lab[k] = *v
		}
	}
	obj.SetAnnotations(ann)
	obj.SetLabels(lab)
	return obj.DeepCopy(), nil
}

func (f *fakeMember) Delete(_ context.Context, m members.Mapping, namespace, name string, _ metav1.DeleteOptions) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects, key(m, namespace, name))
	return nil
}

// edit changes the stored object of resource/namespace/name in place.
func (f *fakeMember) edit(k string, fn func(*unstructured.Unstructured)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, ok := f.objects[k]
	if !ok {
		panic("no object " + k)
	}
	fn(obj)
}

func (f *fakeMember) remove(k string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects, k)
}

func (f *fakeMember) setDown(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = err
}

var errRefused = errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
