// Package memberstest is the one in-memory member for tests of the
// packages that talk to members (propagate, status, inventory, the
// commands): a members.Client that stores what it is sent, records every
// call, and can be scripted to fail, slow down or go away. End-to-end
// tests use real API servers (pkg/testenv); this is for request-shape
// checks and the cases a real server cannot be made to produce on demand.
package memberstest

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Key identifies an object in a Fake.
type Key struct {
	Group, Resource, Namespace, Name string
}

// KeyOf is the key of the object namespace/name of m; namespace is
// ignored for cluster-scoped m.
func KeyOf(m members.Mapping, namespace, name string) Key {
	if !m.Namespaced {
		namespace = ""
	}
	return Key{m.Resource.Group, m.Resource.Resource, namespace, name}
}

// MappingOf is the Mapping of type t.
func MappingOf(t typeconfig.Type) members.Mapping {
	return members.MappingOf(t.Group, t.Version, t.Plural, t.Namespaced())
}

// Fake is one member in memory. Its exported fields are set before use;
// the rest is read through its methods. It is safe for concurrent use.
type Fake struct {
	// ServeAll serves every kind (as resource "things"), whatever Serve
	// said: a member that accepts anything.
	ServeAll bool
	// Generations gives objects with a spec a metadata.generation that
	// moves when an apply changes the spec, as the API server does.
	Generations bool
	// ApplyErr, when set, decides the error of each apply; attempt counts
	// the applies of the object so far, from 1.
	ApplyErr func(obj *unstructured.Unstructured, attempt int) error
	// Delay is added to every apply.
	Delay time.Duration
	// ListErr, when set, decides the error of each LIST (label-selected
	// or metadata-only) of a resource: a member where fedctl's user may
	// not list it, say.
	ListErr func(resource string) error

	mu       sync.Mutex
	served   map[schema.GroupVersionKind]members.Mapping
	pending  map[schema.GroupVersionKind]members.Mapping // served after the next Reset
	objects  map[Key]*unstructured.Unstructured
	calls    []string
	resets   int
	attempts map[string]int
	inFlight int
	maxIn    int
	down     error
}

var _ members.Client = (*Fake)(nil)

// New returns a member that serves types.
func New(types ...typeconfig.Type) *Fake {
	f := &Fake{served: map[schema.GroupVersionKind]members.Mapping{}, pending: map[schema.GroupVersionKind]members.Mapping{},
		objects: map[Key]*unstructured.Unstructured{}, attempts: map[string]int{}}
	for _, t := range types {
		f.served[gvkOf(t)] = MappingOf(t)
	}
	return f
}

func gvkOf(t typeconfig.Type) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: t.Group, Version: t.Version, Kind: t.Kind}
}

// ServeAfterReset makes t served once a CRD for it was applied and Reset
// called, as the API server serves a CRD's type once it is established.
func (f *Fake) ServeAfterReset(t typeconfig.Type) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.pending[gvkOf(t)] = MappingOf(t)
}

// SetDown makes every request fail with err (nil: answer again).
func (f *Fake) SetDown(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = err
}

func (f *Fake) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

// Calls are the requests so far: "APPLY Kind name", "LIST resource",
// "LIST resource metadata NAMESPACE", "GET resource name", "PATCH resource
// name", "DELETE resource name", "LIST * NAMESPACE".
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// ClearCalls forgets the calls so far.
func (f *Fake) ClearCalls() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

// Writes are the calls that write.
func (f *Fake) Writes() []string {
	var w []string
	for _, c := range f.Calls() {
		if !strings.HasPrefix(c, "GET") && !strings.HasPrefix(c, "LIST") {
			w = append(w, c)
		}
	}
	return w
}

// Resets counts the calls of Reset.
func (f *Fake) Resets() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.resets
}

// Attempts counts the applies of the object kind/name.
func (f *Fake) Attempts(kind, name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.attempts[kind+"/"+name]
}

// MaxInFlight is the most applies that were in flight at once.
func (f *Fake) MaxInFlight() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.maxIn
}

// Object is the stored object at k, nil if none; changes to it change the
// member (an edit by someone else).
func (f *Fake) Object(k Key) *unstructured.Unstructured {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.objects[k]
}

// Has says whether an object is stored at k.
func (f *Fake) Has(k Key) bool { return f.Object(k) != nil }

// Put stores obj at k, as if someone else had created it.
func (f *Fake) Put(k Key, obj *unstructured.Unstructured) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.objects[k] = obj
}

// Remove deletes the object at k, as if someone else had.
func (f *Fake) Remove(k Key) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.objects, k)
}

func (f *Fake) Map(_ context.Context, gvk schema.GroupVersionKind) (members.Mapping, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return members.Mapping{}, f.down
	}
	if f.ServeAll {
		return members.Mapping{Resource: gvk.GroupVersion().WithResource("things")}, nil
	}
	if m, ok := f.served[gvk]; ok {
		return m, nil
	}
	for served, m := range f.served {
		if gvk.Version == "" && served.GroupKind() == gvk.GroupKind() {
			return m, nil // the preferred version
		}
	}
	return members.Mapping{}, &members.NotServedError{GVK: gvk}
}

func (f *Fake) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resets++
	for k, v := range f.pending {
		f.served[k] = v
	}
}

func (f *Fake) Server() string { return "https://fake.example" }

func (f *Fake) Resources(context.Context) ([]*metav1.APIResourceList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	byGV := map[string]*metav1.APIResourceList{}
	for gvk, m := range f.served {
		gv := gvk.GroupVersion().String()
		if byGV[gv] == nil {
			byGV[gv] = &metav1.APIResourceList{GroupVersion: gv}
		}
		byGV[gv].APIResources = append(byGV[gv].APIResources, metav1.APIResource{Name: m.Resource.Resource, Kind: gvk.Kind, Namespaced: m.Namespaced, Verbs: []string{"get", "list", "create", "patch", "delete"}})
	}
	var out []*metav1.APIResourceList
	for _, gv := range slices.Sorted(func(yield func(string) bool) {
		for k := range byGV {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, byGV[gv])
	}
	return out, nil
}

func (f *Fake) List(_ context.Context, m members.Mapping, opts members.ListOptions) ([]unstructured.Unstructured, error) {
	f.record("LIST " + m.Resource.Resource)
	if f.ListErr != nil {
		if err := f.ListErr(m.Resource.Resource); err != nil {
			return nil, err
		}
	}
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	var out []unstructured.Unstructured
	for k, o := range f.objects {
		if k.Resource == m.Resource.Resource && k.Group == m.Resource.Group && (opts.Namespace == "" || k.Namespace == opts.Namespace) &&
			sel.Matches(labels.Set(o.GetLabels())) && (opts.FieldSelector == "" || opts.FieldSelector == "metadata.name="+k.Name) {
			out = append(out, *o.DeepCopy())
		}
	}
	return out, nil
}

func (f *Fake) ListTable(context.Context, members.Mapping, members.ListOptions) (*metav1.Table, error) {
	return nil, errors.New("memberstest: the fake has no table printing; test fedctl get against a real API server")
}

func (f *Fake) ListMetadata(_ context.Context, m members.Mapping, opts members.ListOptions) ([]metav1.PartialObjectMetadata, error) {
	f.record("LIST " + m.Resource.Resource + " metadata " + opts.Namespace)
	if f.ListErr != nil {
		if err := f.ListErr(m.Resource.Resource); err != nil {
			return nil, err
		}
	}
	sel, err := labels.Parse(opts.LabelSelector)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	var out []metav1.PartialObjectMetadata
	for k, o := range f.objects {
		if k.Resource == m.Resource.Resource && k.Group == m.Resource.Group && (opts.Namespace == "" || k.Namespace == opts.Namespace) &&
			sel.Matches(labels.Set(o.GetLabels())) {
			out = append(out, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{
				Namespace: o.GetNamespace(), Name: o.GetName(), UID: o.GetUID(), Labels: o.GetLabels(), Annotations: o.GetAnnotations(), Generation: o.GetGeneration(),
				DeletionTimestamp: o.GetDeletionTimestamp(), OwnerReferences: o.GetOwnerReferences(),
			}})
		}
	}
	return out, nil
}

func (f *Fake) NamespaceContents(_ context.Context, namespace string) ([]unstructured.Unstructured, error) {
	f.record("LIST * " + namespace)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	var out []unstructured.Unstructured
	for k, o := range f.objects {
		if k.Namespace == namespace && o.GetKind() != "Namespace" {
			// what the real client reads: metadata, no more
			u := unstructured.Unstructured{}
			u.SetAPIVersion(o.GetAPIVersion())
			u.SetKind(o.GetKind())
			u.SetNamespace(o.GetNamespace())
			u.SetName(o.GetName())
			u.SetLabels(o.GetLabels())
			u.SetAnnotations(o.GetAnnotations())
			u.SetOwnerReferences(o.GetOwnerReferences())
			u.SetDeletionTimestamp(o.GetDeletionTimestamp())
			out = append(out, u)
		}
	}
	return out, nil
}

func (f *Fake) Get(_ context.Context, m members.Mapping, namespace, name string) (*unstructured.Unstructured, error) {
	f.record("GET " + m.Resource.Resource + " " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	if o, ok := f.objects[KeyOf(m, namespace, name)]; ok {
		return o.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(m.Resource.GroupResource(), name)
}

func (f *Fake) Apply(_ context.Context, m members.Mapping, obj *unstructured.Unstructured, opts members.WriteOptions) (*unstructured.Unstructured, error) {
	f.record("APPLY " + obj.GetKind() + " " + obj.GetName())
	f.mu.Lock()
	if f.down != nil {
		defer f.mu.Unlock()
		return nil, f.down
	}
	f.inFlight++
	f.maxIn = max(f.maxIn, f.inFlight)
	key := obj.GetKind() + "/" + obj.GetName()
	f.attempts[key]++
	attempt := f.attempts[key]
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.Delay > 0 {
		time.Sleep(f.Delay)
	}
	if f.ApplyErr != nil {
		if err := f.ApplyErr(obj, attempt); err != nil {
			return nil, err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	k := KeyOf(m, obj.GetNamespace(), obj.GetName())
	stored := obj.DeepCopy()
	if old, ok := f.objects[k]; ok {
		if st, has := old.Object["status"]; has {
			stored.Object["status"] = st // status is the server's, not the applier's
		}
	}
	if _, hasSpec := obj.Object["spec"]; hasSpec && f.Generations {
		gen := int64(1)
		if old, ok := f.objects[k]; ok {
			gen = old.GetGeneration()
			oldSpec, _ := json.Marshal(old.Object["spec"])
			newSpec, _ := json.Marshal(obj.Object["spec"])
			if string(oldSpec) != string(newSpec) {
				gen++
			}
		}
		stored.SetGeneration(gen)
	}
	if obj.GetKind() == "CustomResourceDefinition" {
		stored.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "Established", "status": "True"}}}
	}
	if opts.DryRun {
		return stored, nil
	}
	f.objects[k] = stored
	return stored.DeepCopy(), nil
}

// MergePatch merges the patch's metadata labels and annotations, the only
// merge patches fedctl sends (its recorded generation, its markers).
func (f *Fake) MergePatch(_ context.Context, m members.Mapping, namespace, name string, patch []byte, opts members.WriteOptions) (*unstructured.Unstructured, error) {
	f.record("PATCH " + m.Resource.Resource + " " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return nil, f.down
	}
	obj, ok := f.objects[KeyOf(m, namespace, name)]
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
	target := obj
	if opts.DryRun {
		target = obj.DeepCopy()
	}
	target.SetAnnotations(merge(target.GetAnnotations(), p.Metadata.Annotations))
	target.SetLabels(merge(target.GetLabels(), p.Metadata.Labels))
	return target.DeepCopy(), nil
}

func merge(into map[string]string, patch map[string]*string) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	for k, v := range patch {
		if v == nil {
			delete(into, k)
		} else {
			into[k] = *v
		}
	}
	return into
}

func (f *Fake) Delete(_ context.Context, m members.Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	f.record("DELETE " + m.Resource.Resource + " " + name)
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down != nil {
		return f.down
	}
	if len(opts.DryRun) > 0 {
		return nil
	}
	delete(f.objects, KeyOf(m, namespace, name))
	return nil
}

// Keys are the keys of the stored objects, sorted.
func (f *Fake) Keys() []Key {
	f.mu.Lock()
	defer f.mu.Unlock()
	keys := make([]Key, 0, len(f.objects))
	for k := range f.objects {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b Key) int {
		return strings.Compare(a.Group+"/"+a.Resource+"/"+a.Namespace+"/"+a.Name, b.Group+"/"+b.Resource+"/"+b.Namespace+"/"+b.Name)
	})
	return keys
}

// Edit changes the stored object at k in place, as someone else's write
// would; it panics when there is none (a broken test).
func (f *Fake) Edit(k Key, fn func(*unstructured.Unstructured)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	obj, ok := f.objects[k]
	if !ok {
		panic("memberstest: no object " + k.Resource + " " + k.Namespace + "/" + k.Name)
	}
	fn(obj)
}

// Count counts the calls that start with prefix ("LIST", "APPLY ConfigMap").
func (f *Fake) Count(prefix string) int {
	n := 0
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, prefix) {
			n++
		}
	}
	return n
}

// Unserve stops serving t, as when its CRD is deleted.
func (f *Fake) Unserve(t typeconfig.Type) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.served, gvkOf(t))
}
