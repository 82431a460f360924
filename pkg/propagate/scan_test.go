package propagate

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// A first apply of several objects of one type in one namespace reads what
// is there with one metadata LIST instead of a GET per object, and still
// tells someone else's object and a managed=false one from new ones.
func TestRunScansInsteadOfGettingEachObject(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	put := func(name string, labels map[string]any) {
		f.Put(memberstest.KeyOf(mappingOf(cmType), "shop", name), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "shop", "labels": labels}}})
	}
	put("theirs", nil)
	put("hands-off", map[string]any{federation.ManagedLabel: "false"})
	var specs []spec
	for _, name := range []string{"a", "b", "c", "theirs", "hands-off"} {
		specs = append(specs, spec{t: cmType, name: name, body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	}
	rep := run(t, resultFor(specs...), map[string]*memberstest.Fake{"m": f}, Options{})

	assert.Equal(t, []string{
		"created ConfigMap a", "created ConfigMap b", "created ConfigMap c",
		"failed ConfigMap theirs", "skipped ConfigMap hands-off",
	}, sortedActions(rep.Clusters[0]))
	var gets, metadataLists int
	for _, c := range f.Calls() {
		switch {
		case c[:4] == "GET ":
			gets++
		case c == "LIST configmaps metadata shop":
			metadataLists++
		}
	}
	assert.Zero(t, gets, "no GET per object: %v", f.Calls())
	assert.Equal(t, 1, metadataLists, "one metadata LIST for the type and namespace: %v", f.Calls())
	assert.Equal(t, ReasonAlreadyExists, objectResult(rep.Clusters[0], "theirs").Reason)
}

// One object alone is looked up with a GET: a LIST of the namespace would
// cost more.
func TestRunGetsASingleUnknownObject(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	rep := run(t, resultFor(spec{t: cmType, name: "a", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}}),
		map[string]*memberstest.Fake{"m": f}, Options{})
	require.Equal(t, []string{"created ConfigMap a"}, actions(rep.Clusters[0]))
	assert.Contains(t, f.Calls(), "GET configmaps a")
	assert.NotContains(t, f.Calls(), "LIST configmaps metadata shop")
}

func sortedActions(c ClusterResult) []string {
	return slices.Sorted(slices.Values(actions(c)))
}

func objectResult(c ClusterResult, name string) ObjectResult {
	for _, o := range c.Objects {
		if o.Name == name {
			return o
		}
	}
	return ObjectResult{}
}

// An object placed nowhere for want of its FederatedNamespace in the input
// (a file left out of -f) is left alone, as KubeFed leaves it; one whose
// placement dropped the member is removed.
func TestRunLeavesObjectsOfAnUnfederatedNamespace(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	fakes := map[string]*memberstest.Fake{"m": f}
	both := resultFor(
		spec{t: cmType, name: "kept", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}},
		spec{t: cmType, name: "moved", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	run(t, both, fakes, Options{})
	require.Len(t, f.Keys(), 2)

	later := resultFor(
		spec{t: cmType, name: "kept", body: map[string]any{"data": map[string]any{"k": "v"}}},
		spec{t: cmType, name: "moved", body: map[string]any{"data": map[string]any{"k": "v"}}})
	later.Placed[0].NamespaceNotFederated = true
	rep := run(t, later, fakes, Options{})
	assert.Equal(t, []string{"deleted ConfigMap moved"}, actions(rep.Clusters[0]))
	assert.True(t, f.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "kept")))
	assert.False(t, f.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "moved")))
}

func TestReportNothingDone(t *testing.T) {
	t.Parallel()
	ok := ObjectResult{Action: Created}
	bad := ObjectResult{Action: Failed}
	for _, tt := range []struct {
		name     string
		clusters []ClusterResult
		want     bool
	}{
		{"every member unreachable", []ClusterResult{{Error: "down"}, {Error: "down"}}, true},
		{"every object failed everywhere", []ClusterResult{{Objects: []ObjectResult{bad}}, {Error: "down"}}, true},
		{"one object done", []ClusterResult{{Objects: []ObjectResult{bad, ok}}, {Error: "down"}}, false},
		{"a member with nothing to do", []ClusterResult{{Objects: []ObjectResult{}}, {Error: "down"}}, false},
		{"no member", nil, false},
	} {
		assert.Equal(t, tt.want, (&Report{Clusters: tt.clusters}).NothingDone(), tt.name)
	}
}

// A member named twice (--cluster eu-1 --cluster eu-1) is synced once.
func TestRunSyncsARepeatedMemberOnce(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	rep := Run(context.Background(), Input{Result: res, Clusters: []string{"m", "m"},
		Clients: func(string) (members.Client, error) { return f, nil }})
	require.Len(t, rep.Clusters, 1)
	assert.Equal(t, []string{"created ConfigMap cfg"}, actions(rep.Clusters[0]))
}

func TestNamesRejected(t *testing.T) {
	t.Parallel()
	crd := func(conds ...any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"conditions": conds}}}
	}
	assert.Empty(t, namesRejected(crd()))
	assert.Empty(t, namesRejected(crd(map[string]any{"type": "NamesAccepted", "status": "True"})))
	assert.Equal(t, `MultipleNamesNotAllowed: "widgets" is already in use`, namesRejected(crd(
		map[string]any{"type": "NamesAccepted", "status": "False", "reason": "MultipleNamesNotAllowed", "message": `"widgets" is already in use`},
		map[string]any{"type": "Established", "status": "False"})))
}

// A Namespace no longer placed is not deleted while it holds objects
// fedctl did not create (deleting it would delete them); once they are
// gone, it is. What a member creates by itself does not count.
func TestRunKeepsANamespaceHoldingOthersObjects(t *testing.T) {
	t.Parallel()
	f := newFake(nsType, cmType)
	fakes := map[string]*memberstest.Fake{"m": f}
	placed := resultFor(spec{t: nsType, name: "shop", clusters: []string{"m"}},
		spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	run(t, placed, fakes, Options{})
	put := func(name string, meta map[string]any) {
		meta["name"], meta["namespace"] = name, "shop"
		f.Put(memberstest.KeyOf(mappingOf(cmType), "shop", name), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}})
	}
	put("kube-root-ca.crt", map[string]any{})
	put("theirs", map[string]any{})

	gone := resultFor(spec{t: nsType, name: "shop"},
		spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}})
	rep := run(t, gone, fakes, Options{})
	assert.Equal(t, []string{"deleted ConfigMap cfg", "failed Namespace shop"}, actions(rep.Clusters[0]))
	ns := objectResult(rep.Clusters[0], "shop")
	assert.Equal(t, ReasonNamespaceNotEmpty, ns.Reason)
	assert.Contains(t, ns.Error, "1 object(s) fedctl did not create, or another input's (ConfigMap theirs)")
	assert.True(t, f.Has(memberstest.KeyOf(mappingOf(nsType), "", "shop")))

	// a name federate cannot copy, or a controller outside the namespace,
	// does not make an object the namespace's own; one an object there
	// controls is
	f.Remove(memberstest.KeyOf(mappingOf(cmType), "shop", "theirs"))
	controller := func(kind string) []any {
		return []any{map[string]any{"apiVersion": "v1", "kind": kind, "name": "o", "uid": "u", "controller": true}}
	}
	put("team:admins", map[string]any{})
	put("made-elsewhere", map[string]any{"ownerReferences": controller("Namespace")}) // a cluster-scoped owner
	put("made-here", map[string]any{"ownerReferences": controller("ConfigMap")})      // a namespaced one, there or gone
	rep = run(t, gone, fakes, Options{})
	assert.Contains(t, objectResult(rep.Clusters[0], "shop").Error, "2 object(s) fedctl did not create, or another input's (ConfigMap made-elsewhere, ConfigMap team:admins)")

	// fedctl's own object of another input (not this run's, not its
	// set's): that input still places it there, so it keeps the namespace
	f.Remove(memberstest.KeyOf(mappingOf(cmType), "shop", "team:admins"))
	f.Remove(memberstest.KeyOf(mappingOf(cmType), "shop", "made-elsewhere"))
	put("other-app", map[string]any{"labels": map[string]any{federation.ManagedByLabel: federation.ManagedByValue},
		"annotations": map[string]any{federation.SourceAnnotation: "FederatedConfigMap/shop/other-app"}})
	rep = run(t, gone, fakes, Options{})
	assert.Contains(t, objectResult(rep.Clusters[0], "shop").Error, "1 object(s) fedctl did not create, or another input's (ConfigMap other-app (another input's))")
	f.Remove(memberstest.KeyOf(mappingOf(cmType), "shop", "other-app"))

	for _, name := range []string{"made-here"} {
		f.Remove(memberstest.KeyOf(mappingOf(cmType), "shop", name))
	}
	rep = run(t, gone, fakes, Options{})
	assert.Equal(t, []string{"deleted Namespace shop"}, actions(rep.Clusters[0]))
}

// A CustomResourceDefinition no longer placed is not deleted while the
// member holds custom resources of it fedctl did not create, or another
// input's: deleting it would delete them. Those being deleted already do
// not count; a failed list keeps it.
func TestRunKeepsACRDHoldingOthersResources(t *testing.T) {
	t.Parallel()
	crdType := typeconfig.Type{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Plural: "customresourcedefinitions", Scope: typeconfig.Cluster}
	widgetType := typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	f := newFake(crdType, widgetType)
	fakes := map[string]*memberstest.Fake{"m": f}
	body := map[string]any{"spec": map[string]any{"group": "example.com", "scope": "Namespaced", "names": map[string]any{"plural": "widgets", "kind": "Widget"},
		"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true}}}}
	run(t, resultFor(spec{t: crdType, name: "widgets.example.com", body: body, clusters: []string{"m"}}), fakes, Options{})
	widget := func(name string, meta map[string]any) {
		meta["name"], meta["namespace"] = name, "team"
		f.Put(memberstest.KeyOf(mappingOf(widgetType), "team", name), &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "example.com/v1", "kind": "Widget", "metadata": meta}})
	}
	ours := map[string]any{federation.ManagedByLabel: federation.ManagedByValue}
	widget("going", map[string]any{"labels": ours, "deletionTimestamp": "2026-11-25T10:00:00Z"})
	widget("other-input", map[string]any{"labels": ours, "annotations": map[string]any{federation.SourceAnnotation: "FederatedWidget/team/other-input"}})
	widget("theirs", map[string]any{})

	gone := resultFor(spec{t: crdType, name: "widgets.example.com", body: body})
	rep := run(t, gone, fakes, Options{})
	crd := objectResult(rep.Clusters[0], "widgets.example.com")
	assert.Equal(t, Failed, crd.Action)
	assert.Equal(t, ReasonCRDNotEmpty, crd.Reason)
	assert.Contains(t, crd.Error, "2 custom resource(s) of it fedctl did not create, or another input's (team/other-input (another input's), team/theirs)")
	assert.True(t, f.Has(memberstest.KeyOf(mappingOf(crdType), "", "widgets.example.com")))

	f.ListErr = func(resource string) error {
		if resource == "widgets" {
			return errors.New("etcd timed out")
		}
		return nil
	}
	rep = run(t, gone, fakes, Options{})
	assert.Contains(t, objectResult(rep.Clusters[0], "widgets.example.com").Error, "cannot tell which widgets.example.com it holds")
	f.ListErr = nil

	f.Remove(memberstest.KeyOf(mappingOf(widgetType), "team", "theirs"))
	f.Remove(memberstest.KeyOf(mappingOf(widgetType), "team", "other-input"))
	rep = run(t, gone, fakes, Options{})
	assert.Equal(t, Deleted, objectResult(rep.Clusters[0], "widgets.example.com").Action, "only one being deleted left")

	body["spec"].(map[string]any)["versions"] = []any{map[string]any{"name": "v1", "served": false, "storage": true}}
	f.Put(memberstest.KeyOf(mappingOf(crdType), "", "widgets.example.com"), &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com", "labels": ours, "annotations": map[string]any{federation.SourceAnnotation: "FederatedCustomResourceDefinition/widgets.example.com"}}, "spec": body["spec"]}})
	rep = run(t, gone, fakes, Options{})
	assert.Contains(t, objectResult(rep.Clusters[0], "widgets.example.com").Error, "not deleted: it serves no version", "what it stored cannot be read")
}

// deleteRecorder records the options of each DELETE it passes on.
type deleteRecorder struct {
	*memberstest.Fake
	mu   sync.Mutex
	opts []metav1.DeleteOptions
}

func (d *deleteRecorder) Delete(ctx context.Context, m members.Mapping, namespace, name string, opts metav1.DeleteOptions) error {
	d.mu.Lock()
	d.opts = append(d.opts, opts)
	d.mu.Unlock()
	return d.Fake.Delete(ctx, m, namespace, name, opts)
}

// TestDeleteKeepsTheUIDPrecondition: fedctl delete sends KubeFed's
// kubefed.io/deleteoption, but never without the UID of the object it
// listed, even when the annotation brings preconditions of its own: a
// namesake created since the LIST is not deleted.
func TestDeleteKeepsTheUIDPrecondition(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	run(t, res, map[string]*memberstest.Fake{"m": f}, Options{})
	key := memberstest.KeyOf(mappingOf(cmType), "shop", "cfg")
	f.Edit(key, func(o *unstructured.Unstructured) { o.SetUID("listed-uid") })
	res.Placed[0].Object.Annotations = map[string]string{federation.DeleteOptionAnnotation: `{"preconditions": {"resourceVersion": "7", "uid": "some-other-members-uid"}, "propagationPolicy": "Orphan"}`}
	rec := &deleteRecorder{Fake: f}
	rep := Delete(context.Background(), Input{Result: res, Clusters: []string{"m"}, Clients: func(string) (members.Client, error) { return rec, nil }})
	require.Empty(t, rep.Failed(), "%+v", rep.Clusters)
	require.Len(t, rec.opts, 1)
	p := rec.opts[0].Preconditions
	require.NotNil(t, p)
	require.NotNil(t, p.UID, "the UID guard stays")
	assert.Equal(t, types.UID("listed-uid"), *p.UID)
	assert.Equal(t, "7", *p.ResourceVersion, "the annotation's own precondition too")
	assert.Equal(t, metav1.DeletePropagationOrphan, *rec.opts[0].PropagationPolicy)
}

// conflictOnce answers the first merge patch with a conflict, as the API
// server does when the patch's resourceVersion is no longer the object's,
// after write has changed the object; it records the patches sent.
type conflictOnce struct {
	*memberstest.Fake
	write   func()
	mu      sync.Mutex
	patches []string
}

func (c *conflictOnce) MergePatch(ctx context.Context, m members.Mapping, namespace, name string, patch []byte, opts members.WriteOptions) (*unstructured.Unstructured, error) {
	c.mu.Lock()
	c.patches = append(c.patches, string(patch))
	first := len(c.patches) == 1
	c.mu.Unlock()
	if first {
		c.write()
		return nil, apierrors.NewConflict(schema.GroupResource{Resource: m.Resource.Resource}, name, errors.New("the object has been modified"))
	}
	return c.Fake.MergePatch(ctx, m, namespace, name, patch, opts)
}

// TestReleaseReadsAgainOnAConflict: release sets managedFields to the other
// managers' entries it read, with the resourceVersion it read them at; an
// object written in between is read again, so that the new writer's entry
// is kept, not dropped.
func TestReleaseReadsAgainOnAConflict(t *testing.T) {
	t.Parallel()
	f := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	run(t, res, map[string]*memberstest.Fake{"m": f}, Options{})
	key := memberstest.KeyOf(mappingOf(cmType), "shop", "cfg")
	f.Edit(key, func(o *unstructured.Unstructured) { o.SetResourceVersion("1") })
	c := &conflictOnce{Fake: f, write: func() {
		f.Edit(key, func(o *unstructured.Unstructured) {
			o.SetResourceVersion("2")
			o.SetManagedFields([]metav1.ManagedFieldsEntry{{Manager: "helm", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1"}})
		})
	}}
	rep := Release(context.Background(), Input{Result: res, Clusters: []string{"m"}, Clients: func(string) (members.Client, error) { return c, nil }})
	require.Empty(t, rep.Failed(), "%+v", rep.Clusters)
	assert.Equal(t, Released, objectResult(rep.Clusters[0], "cfg").Action)
	require.Len(t, c.patches, 2)
	assert.Contains(t, c.patches[0], `"resourceVersion":"1"`)
	assert.Contains(t, c.patches[1], `"resourceVersion":"2"`)
	assert.Contains(t, c.patches[1], `"manager":"helm"`, "the entry written since the LIST is kept")

	// deleted and made again since the LIST: the namesake is not fedctl's
	// to release, and is left as it is
	f.Remove(key)
	run(t, res, map[string]*memberstest.Fake{"m": f}, Options{})
	f.Edit(key, func(o *unstructured.Unstructured) { o.SetUID("listed"); o.SetResourceVersion("3") })
	c = &conflictOnce{Fake: f, write: func() { f.Edit(key, func(o *unstructured.Unstructured) { o.SetUID("namesake") }) }}
	rep = Release(context.Background(), Input{Result: res, Clusters: []string{"m"}, Clients: func(string) (members.Client, error) { return c, nil }})
	require.Empty(t, rep.Failed(), "%+v", rep.Clusters)
	assert.Len(t, c.patches, 1, "no patch of the namesake")
}

// TestDeleteReadsAnotherVersion: a member that serves the input's type at
// another version only (the CRD moved on to v2) still has fedctl's objects
// of it read, at the version it serves, and deleted; before, the type was
// taken as not served and its objects stayed without a word.
func TestDeleteReadsAnotherVersion(t *testing.T) {
	t.Parallel()
	v2 := typeconfig.Type{Group: "example.com", Version: "v2", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
	f := newFake(v2)
	res := resultFor(spec{t: widgetType, name: "w", clusters: []string{"m"}}) // the input says v1
	f.Put(memberstest.KeyOf(mappingOf(v2), "shop", "w"), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v2", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "shop",
			"labels": map[string]any{federation.ManagedByLabel: federation.ManagedByValue}, "annotations": map[string]any{federation.SourceAnnotation: "FederatedWidget/shop/w"}}}})
	rep := Delete(context.Background(), Input{Result: res, Clusters: []string{"m"}, Clients: func(string) (members.Client, error) { return f, nil }})
	require.Empty(t, rep.Failed(), "%+v", rep.Clusters)
	assert.Equal(t, []string{"deleted Widget w"}, actions(rep.Clusters[0]))
	assert.False(t, f.Has(memberstest.KeyOf(mappingOf(v2), "shop", "w")))
}

// TestDryRunDeplacesANamespaceOfTheInput: a dry run leaves the de-placed
// objects in the namespace; they are the input's (by the annotation the
// member's metadata list carries), so the namespace's deletion is shown,
// not NamespaceNotEmpty.
func TestDryRunDeplacesANamespaceOfTheInput(t *testing.T) {
	t.Parallel()
	f := newFake(nsType, cmType)
	fakes := map[string]*memberstest.Fake{"m": f}
	placed := resultFor(spec{t: nsType, name: "shop", clusters: []string{"m"}},
		spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"m"}})
	run(t, placed, fakes, Options{})
	gone := resultFor(spec{t: nsType, name: "shop"}, spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}})
	rep := run(t, gone, fakes, Options{DryRun: true})
	assert.Equal(t, []string{"deleted ConfigMap cfg", "deleted Namespace shop"}, actions(rep.Clusters[0]))
	assert.True(t, f.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "cfg")), "a dry run")
}

// ownerUnknown is a member whose discovery of the owners' group fails.
type ownerUnknown struct{ *memberstest.Fake }

func (o ownerUnknown) Map(ctx context.Context, gvk schema.GroupVersionKind) (members.Mapping, error) {
	if gvk.Group == "example.com" {
		return members.Mapping{}, &members.GroupDiscoveryError{Group: gvk.GroupVersion().String(), Err: errors.New("the server is currently unable to handle the request")}
	}
	return o.Fake.Map(ctx, gvk)
}

// TestNamespaceKeptWhenAnOwnerCannotBeTold: an object controlled by an
// owner of a group the member cannot discover might be controlled from
// outside the namespace: not knowing is no ground to delete it.
func TestNamespaceKeptWhenAnOwnerCannotBeTold(t *testing.T) {
	t.Parallel()
	f := newFake(nsType, cmType)
	placed := resultFor(spec{t: nsType, name: "shop", clusters: []string{"m"}})
	run(t, placed, map[string]*memberstest.Fake{"m": f}, Options{})
	f.Put(memberstest.KeyOf(mappingOf(cmType), "shop", "made"), &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "made", "namespace": "shop", "ownerReferences": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w", "uid": "u", "controller": true}}}}})
	rep := Run(context.Background(), Input{Result: resultFor(spec{t: nsType, name: "shop"}), Clusters: []string{"m"},
		Clients: func(string) (members.Client, error) { return ownerUnknown{f}, nil }})
	ns := objectResult(rep.Clusters[0], "shop")
	assert.Equal(t, ReasonNamespaceNotEmpty, ns.Reason)
	assert.Contains(t, ns.Error, "not deleted: cannot tell where the owner of ConfigMap made is")
	assert.True(t, f.Has(memberstest.KeyOf(mappingOf(nsType), "", "shop")))
}
