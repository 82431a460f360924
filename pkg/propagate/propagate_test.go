package propagate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	nsType     = typeconfig.Type{Version: "v1", Kind: "Namespace", Plural: "namespaces", Scope: typeconfig.Cluster}
	cmType     = typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	deployType = typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	crdType    = typeconfig.Type{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Plural: "customresourcedefinitions", Scope: typeconfig.Cluster}
	widgetType = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
)

func gvkOf(t typeconfig.Type) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: t.Group, Version: t.Version, Kind: t.Kind}
}

func mappingOf(t typeconfig.Type) members.Mapping {
	return members.Mapping{Resource: schema.GroupVersionResource{Group: t.Group, Version: t.Version, Resource: t.Plural}, Namespaced: t.Namespaced()}
}

func newFake(types ...typeconfig.Type) *memberstest.Fake { return memberstest.New(types...) }

// object returns a federated object of type t and its member object.
func object(t typeconfig.Type, ns, name string, body map[string]any) (*federation.Object, map[string]any) {
	o := &federation.Object{}
	o.Kind, o.Namespace, o.Name = t.FederatedKind(), ns, name
	obj := runtime.DeepCopyJSON(body)
	if obj == nil {
		obj = map[string]any{}
	}
	meta := map[string]any{"name": name,
		"labels":      map[string]any{federation.ManagedLabel: "true", federation.ManagedByLabel: federation.ManagedByValue},
		"annotations": map[string]any{federation.SourceAnnotation: o.SourceRef()}}
	if t.Namespaced() {
		meta["namespace"] = ns
	}
	obj["metadata"], obj["apiVersion"], obj["kind"] = meta, t.APIVersion(), t.Kind
	return o, obj
}

// resultFor places each (type, name) in clusters.
type spec struct {
	t        typeconfig.Type
	name     string
	body     map[string]any
	clusters []string
}

func resultFor(specs ...spec) *render.Result {
	res := &render.Result{}
	for _, s := range specs {
		ns := "shop"
		if !s.t.Namespaced() {
			ns = ""
		}
		o, obj := object(s.t, ns, s.name, s.body)
		res.Placed = append(res.Placed, render.Placed{Object: o, Type: s.t, Clusters: s.clusters})
		for _, c := range s.clusters {
			res.Targets = append(res.Targets, render.Target{Cluster: c, Type: s.t, Object: runtime.DeepCopyJSON(obj), Source: o})
		}
	}
	return res
}

func run(t *testing.T, res *render.Result, fakes map[string]*memberstest.Fake, opts Options) *Report {
	t.Helper()
	return Run(context.Background(), Input{
		Result: res,
		Clusters: slices.Sorted(func(yield func(string) bool) {
			for k := range fakes {
				if !yield(k) {
					return
				}
			}
		}),
		// Retrying, as every member's client of a run is (members.NewClient).
		Clients: func(name string) (members.Client, error) { return members.Retrying(fakes[name]), nil },
		Options: opts,
	})
}

func actions(c ClusterResult) []string {
	var out []string
	for _, o := range c.Objects {
		out = append(out, fmt.Sprintf("%s %s %s", o.Action, o.Kind, o.Name))
	}
	return out
}

func TestRunAppliesInInstallOrder(t *testing.T) {
	t.Parallel()
	fake := newFake(nsType, cmType, deployType, crdType)
	fake.ServeAfterReset(widgetType)
	res := resultFor(
		spec{t: deployType, name: "web", clusters: []string{"a"}},
		spec{t: widgetType, name: "w", clusters: []string{"a"}},
		spec{t: cmType, name: "cfg", clusters: []string{"a"}},
		spec{t: crdType, name: "widgets.example.com", clusters: []string{"a"}, body: map[string]any{"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget"}}}},
		spec{t: nsType, name: "shop", clusters: []string{"a"}},
	)
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{Requests: 1})
	require.Empty(t, rep.Failed(), "%+v", rep)
	assert.Equal(t, []string{"APPLY Namespace shop", "APPLY CustomResourceDefinition widgets.example.com", "APPLY ConfigMap cfg", "APPLY Deployment web", "APPLY Widget w"}, fake.Writes(),
		"Namespaces and CRDs first, the Widget once its CRD is established")
	assert.Equal(t, 1, fake.Resets(), "types are discovered again after a CRD")
	assert.Equal(t, []string{"created Namespace shop", "created CustomResourceDefinition widgets.example.com", "created ConfigMap cfg", "created Deployment web", "created Widget w"}, actions(rep.Clusters[0]))
}

func TestRunPreflightFailsTheMemberAlone(t *testing.T) {
	t.Parallel()
	full, lacking := newFake(cmType, widgetType), newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}}, spec{t: widgetType, name: "w", clusters: []string{"a", "b"}})
	rep := run(t, res, map[string]*memberstest.Fake{"a": full, "b": lacking}, Options{})
	assert.Equal(t, []string{"b"}, rep.Failed())
	assert.Equal(t, "FederatedWidget shop/w: type example.com/v1 Widget is not served by this cluster; install its CRD there first", rep.Clusters[1].Error)
	assert.Empty(t, lacking.Writes(), "nothing is written to a member that fails the preflight")
	assert.Equal(t, []string{"created ConfigMap cfg", "created Widget w"}, actions(rep.Clusters[0]))
}

// TestRunRetriesTransientErrors: through the member's client (Retrying),
// transient errors are retried for as long as the member's time allows,
// not a fixed number of times; a final error is not retried.
func TestRunRetriesTransientErrors(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	fake.ApplyErr = func(obj *unstructured.Unstructured, attempt int) error {
		switch {
		case obj.GetName() == "busy" && attempt < 3:
			return apierrors.NewTooManyRequests("slow down", 0)
		case obj.GetName() == "bad":
			return apierrors.NewBadRequest("invalid")
		case obj.GetName() == "down":
			return apierrors.NewServiceUnavailable("down")
		}
		return nil
	}
	res := resultFor(spec{t: cmType, name: "busy", clusters: []string{"a"}}, spec{t: cmType, name: "bad", clusters: []string{"a"}}, spec{t: cmType, name: "down", clusters: []string{"a"}})
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{Deadline: 2 * time.Second})
	assert.Equal(t, []string{"created ConfigMap busy", "failed ConfigMap bad", "failed ConfigMap down"}, actions(rep.Clusters[0]))
	assert.Equal(t, 3, fake.Attempts("ConfigMap", "busy"), "429 retried until it succeeds")
	assert.Equal(t, 1, fake.Attempts("ConfigMap", "bad"), "a 400 is final")
	assert.Greater(t, fake.Attempts("ConfigMap", "down"), 4, "a 503 is retried until the member's time runs out, more than the old fixed 4 tries")
}

func TestRunBoundsRequestsPerMember(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	fake.Delay = 20 * time.Millisecond
	var specs []spec
	for i := range 10 {
		specs = append(specs, spec{t: cmType, name: fmt.Sprintf("cm-%d", i), clusters: []string{"a"}})
	}
	rep := run(t, resultFor(specs...), map[string]*memberstest.Fake{"a": fake}, Options{Requests: 3})
	require.Empty(t, rep.Failed())
	assert.Equal(t, 3, fake.MaxInFlight())
}

func TestRunSendsNothingWhenNothingChanged(t *testing.T) {
	t.Parallel()
	fakes := map[string]*memberstest.Fake{"a": newFake(cmType), "b": newFake(cmType)}
	res := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"a", "b"}})
	run(t, res, fakes, Options{})
	for _, f := range fakes {
		f.ClearCalls()
	}
	rep := run(t, res, fakes, Options{})
	for name, f := range fakes {
		assert.Empty(t, f.Writes(), name)
		assert.Equal(t, []string{"LIST configmaps"}, f.Calls(), "one LIST per type and no GET in %s", name)
	}
	assert.Equal(t, []string{"unchanged ConfigMap cfg"}, actions(rep.Clusters[0]))

	// someone edits the data in b: the next run applies there only
	fakes["b"].Object(memberstest.KeyOf(mappingOf(cmType), "shop", "cfg")).Object["data"] = map[string]any{"k": "edited"}
	rep = run(t, res, fakes, Options{})
	assert.Equal(t, []string{"unchanged ConfigMap cfg"}, actions(rep.Clusters[0]))
	assert.Equal(t, []string{"configured ConfigMap cfg"}, actions(rep.Clusters[1]))
}

func TestRunRemovesWhatIsNoLongerPlaced(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: cmType, name: "kept", clusters: []string{"a"}})
	run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{})
	// an object of a federated object that is not in the input
	_, other := object(cmType, "shop", "other", nil)
	fake.Put(memberstest.KeyOf(mappingOf(cmType), "shop", "other"), &unstructured.Unstructured{Object: other})
	fake.ClearCalls()

	res = resultFor(spec{t: cmType, name: "cfg", clusters: nil}, spec{t: cmType, name: "kept", clusters: []string{"a"}})
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{})
	assert.Equal(t, []string{"unchanged ConfigMap kept", "deleted ConfigMap cfg"}, actions(rep.Clusters[0]))
	assert.Equal(t, []string{"DELETE configmaps cfg"}, fake.Writes(), "the object of a federated object outside the input is left alone")
}

func TestRunReportsRenderErrorsPerObject(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}, spec{t: cmType, name: "broken", clusters: []string{"a"}})
	res.Targets = res.Targets[:1]
	res.Errors = []error{&render.TargetError{Cluster: "a", Object: res.Placed[1].Object, Err: errors.New("override 0: bad path")}}
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{})
	assert.Equal(t, []string{"created ConfigMap cfg", "failed ConfigMap broken"}, actions(rep.Clusters[0]))
	assert.Equal(t, ReasonRenderFailed, rep.Clusters[0].Objects[1].Reason)
	assert.Equal(t, []string{"APPLY ConfigMap cfg"}, fake.Writes(), "a placed object that failed to render is not removed")
}

func TestRunStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := Run(ctx, Input{Result: resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a"}}), Clusters: []string{"a"},
		Clients: func(string) (members.Client, error) { return fake, nil }, Options: Options{Concurrency: 1}})
	assert.Equal(t, []string{"a"}, rep.Failed())
	assert.Empty(t, fake.Writes())
}

func TestRunServerDryRunSkipsObjectsOfNewCRDs(t *testing.T) {
	t.Parallel()
	fake := newFake(nsType, crdType)
	res := resultFor(
		spec{t: widgetType, name: "w", clusters: []string{"a"}},
		spec{t: crdType, name: "widgets.example.com", clusters: []string{"a"}, body: map[string]any{"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget"}}}},
	)
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{DryRun: true})
	assert.Empty(t, rep.Failed())
	assert.Equal(t, []string{"created CustomResourceDefinition widgets.example.com", "skipped Widget w"}, actions(rep.Clusters[0]))
	assert.Equal(t, ReasonCRDNotCreated, rep.Clusters[0].Objects[1].Reason)
}

// TestRunCordonedSkipsANewCRDAndItsObjects: a cordoned member gets no new
// CRD, and so no new objects of its type: both are skipped as cordoned,
// and the member does not fail for want of a CRD it was never to get.
func TestRunCordonedSkipsANewCRDAndItsObjects(t *testing.T) {
	t.Parallel()
	fake := newFake(nsType, crdType)
	res := resultFor(
		spec{t: widgetType, name: "w", clusters: []string{"a"}},
		spec{t: crdType, name: "widgets.example.com", clusters: []string{"a"}, body: map[string]any{"spec": map[string]any{"group": "example.com", "names": map[string]any{"kind": "Widget"}}}},
	)
	rep := run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{Cordoned: []string{"a"}})
	assert.Empty(t, rep.Failed(), "%+v", rep.Clusters)
	assert.Equal(t, []string{"skipped CustomResourceDefinition widgets.example.com", "skipped Widget w"}, actions(rep.Clusters[0]))
	for _, o := range rep.Clusters[0].Objects {
		assert.Equal(t, ReasonCordoned, o.Reason, o.Kind)
	}
	assert.Empty(t, fake.Writes())

	// a type not served whose CRD is not the input's to create is the
	// member's problem, cordoned or not
	rep = run(t, resultFor(spec{t: widgetType, name: "w", clusters: []string{"a"}}), map[string]*memberstest.Fake{"a": newFake(nsType)}, Options{Cordoned: []string{"a"}})
	assert.Equal(t, []string{"a"}, rep.Failed())
	assert.Contains(t, rep.Clusters[0].Error, "not served", "%+v", rep.Clusters[0])
}

// panickyClient panics on its first apply, as a bug in fedctl would.
type panickyClient struct{ *memberstest.Fake }

func (panickyClient) Apply(context.Context, members.Mapping, *unstructured.Unstructured, members.WriteOptions) (*unstructured.Unstructured, error) {
	panic("index out of range")
}

// TestRunReportsAPanicAsThatMembersBug: a panic while syncing one member
// fails that member with an internal error, kept for cmd.Main to report
// with its stack; the other members are synced.
func TestRunReportsAPanicAsThatMembersBug(t *testing.T) {
	t.Parallel()
	good := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", clusters: []string{"a", "b"}})
	rep := Run(context.Background(), Input{Result: res, Clusters: []string{"a", "b"}, Clients: func(c string) (members.Client, error) {
		if c == "b" {
			return panickyClient{newFake(cmType)}, nil
		}
		return good, nil
	}})
	assert.Equal(t, []string{"created ConfigMap cfg"}, actions(rep.Clusters[0]))
	assert.Equal(t, "internal error: index out of range; this is a bug in fedctl, please report it", rep.Clusters[1].Error)
	require.NotNil(t, rep.Panic())
	assert.Contains(t, string(rep.Panic().Stack), "propagate_test.go", "the stack of the panic, for the report")
}

// TestRunDeadlineLeavesTheRestNotAttempted: when --deadline passes, the
// objects not sent yet are failed as not attempted (one reason, for one
// line per member), and OnResult streams every other object's result.
func TestRunDeadlineLeavesTheRestNotAttempted(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	fake.Delay = 50 * time.Millisecond
	var specs []spec
	for i := range 40 {
		specs = append(specs, spec{t: cmType, name: fmt.Sprintf("cm-%02d", i), clusters: []string{"a"}})
	}
	var mu sync.Mutex
	streamed := map[string]Action{}
	rep := run(t, resultFor(specs...), map[string]*memberstest.Fake{"a": fake}, Options{Requests: 2, Deadline: 300 * time.Millisecond,
		OnResult: func(cluster string, r ObjectResult) {
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, "a", cluster)
			streamed[r.Name] = r.Action
		}})
	c := rep.Clusters[0]
	created, notAttempted := c.Count(Created), 0
	for _, o := range c.Objects {
		if o.Reason == ReasonDeadlineReached {
			notAttempted++
			assert.Equal(t, NotAttemptedDeadline, o.Error)
			assert.NotContains(t, streamed, o.Name, "not attempted objects are not streamed")
		}
	}
	assert.Positive(t, created)
	assert.Positive(t, notAttempted)
	assert.Less(t, created, 40)
	for _, o := range c.Objects {
		if o.Action == Created {
			assert.Equal(t, Created, streamed[o.Name], "streamed as it happened")
		}
	}
}
