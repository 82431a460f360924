package status

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	nsType     = typeconfig.Type{Version: "v1", Kind: "Namespace", Plural: "namespaces", Scope: typeconfig.Cluster}
	cmType     = typeconfig.Type{Version: "v1", Kind: "ConfigMap", Plural: "configmaps", Scope: typeconfig.Namespaced}
	deployType = typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
)

const manifests = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: settings, namespace: shop}
spec:
  template:
    data: {k: v}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  template:
    spec:
      replicas: 2
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: nginx}]
  placement:
    clusters: [{name: eu-1}, {name: us-1}]
`

// fixture renders manifests for members eu-1 and us-1 and applies them to
// two fake members with propagate, as fedctl apply does.
type fixture struct {
	res     *render.Result
	members map[string]*memberstest.Fake
}

func newFixture(t *testing.T, input string) *fixture {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(input), 0o600))
	fed := members.New()
	for _, name := range []string{"eu-1", "us-1"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
	}
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	f := &fixture{res: out.Result, members: map[string]*memberstest.Fake{
		"eu-1": newFakeMember(nsType, cmType, deployType),
		"us-1": newFakeMember(nsType, cmType, deployType),
	}}
	return f
}

func (f *fixture) input() Input {
	return Input{Result: f.res, Clusters: []string{"us-1", "eu-1"}, Clients: func(c string) (members.Client, error) { return f.members[c], nil }}
}

func (f *fixture) apply(t *testing.T) {
	t.Helper()
	in := f.input()
	report := propagate.Run(context.Background(), propagate.Input{Result: f.res, Clusters: in.Clusters, Clients: in.Clients})
	require.Empty(t, report.Failed(), "%+v", report.Clusters)
}

// setReady gives the Deployment in cluster the status its controller
// writes once every replica is available.
func (f *fixture) setReady(cluster string) {
	f.members[cluster].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) {
		n, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
		d.Object["status"] = map[string]any{
			"observedGeneration": d.GetGeneration(), "replicas": n, "updatedReplicas": n, "readyReplicas": n, "availableReplicas": n,
			"conditions": []any{
				map[string]any{"type": "Available", "status": "True"},
				map[string]any{"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
			},
		}
	})
}

func statusOf(r *Report, ref, cluster string) ClusterStatus {
	for _, o := range r.Items {
		for _, c := range o.Status.Clusters {
			if o.Ref() == ref && c.Name == cluster {
				return c
			}
		}
	}
	return ClusterStatus{}
}

func TestReadAfterApplyIsOK(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	f.setReady("eu-1")
	listsBefore := f.members["eu-1"].Count("LIST")
	r := Read(context.Background(), f.input())
	for _, o := range r.Items {
		assert.Equal(t, "True", o.Status.Conditions[0].Status, o.Ref())
		for _, c := range o.Status.Clusters {
			assert.Equal(t, OK, c.Propagation(), "what apply just wrote is what it would write: %s in %s", o.Ref(), c.Name)
		}
	}
	assert.Equal(t, Current, statusOf(r, "FederatedDeployment shop/web", "eu-1").Readiness)
	us := statusOf(r, "FederatedDeployment shop/web", "us-1")
	assert.Equal(t, InProgress, us.Readiness, "no status yet")
	assert.Equal(t, int64(2), *us.DesiredReplicas)
	assert.Equal(t, int64(0), *us.ReadyReplicas)
	assert.Equal(t, "3 federated objects, 6 member objects: 5 Current, 1 InProgress; propagation: 6 OK", r.Summary.String())
	assert.Equal(t, 3, f.members["eu-1"].Count("LIST")-listsBefore, "one LIST per type: namespaces, configmaps, deployments")

	var table bytes.Buffer
	tab, err := Table(r)
	require.NoError(t, err)
	require.NoError(t, tab.Write(&table, printers.TableOptions{}))
	testutil.AssertGolden(t, table.Bytes(), "testdata/ok.golden")
}

func TestReadStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		change  func(f *fixture)
		ref     string
		cluster string
		want    string
		message string
	}{
		{
			name: "a spec changed by someone else is Drifted",
			change: func(f *fixture) {
				f.members["us-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) { d.SetGeneration(2) })
			},
			ref: "FederatedDeployment shop/web", cluster: "us-1", want: Drifted,
			message: "its spec was changed since fedctl applied it (generation 2, fedctl applied generation 1)",
		},
		{
			name: "edited data of a type without generation is Drifted",
			change: func(f *fixture) {
				f.members["eu-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(cmType), "shop", "settings"), func(c *unstructured.Unstructured) { c.Object["data"] = map[string]any{"k": "edited"} })
			},
			ref: "FederatedConfigMap shop/settings", cluster: "eu-1", want: Drifted,
			message: "its labels, annotations or fields were changed since fedctl applied it",
		},
		{
			name: "an object deleted from the member is NotApplied",
			change: func(f *fixture) {
				f.members["eu-1"].Remove(memberstest.KeyOf(memberstest.MappingOf(cmType), "shop", "settings"))
			},
			ref: "FederatedConfigMap shop/settings", cluster: "eu-1", want: NotApplied,
			message: "placed here but not in the cluster; fedctl apply creates it",
		},
		{
			name: "an object without fedctl's label is AlreadyExists",
			change: func(f *fixture) {
				f.members["eu-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(cmType), "shop", "settings"), func(c *unstructured.Unstructured) { c.SetLabels(nil) })
			},
			ref: "FederatedConfigMap shop/settings", cluster: "eu-1", want: AlreadyExists,
			message: "exists and was not created by fedctl; fedctl apply --adopt takes it over",
		},
		{
			name: "kubefed.io/managed: false is ManagedLabelFalse",
			change: func(f *fixture) {
				f.members["us-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(cmType), "shop", "settings"), func(c *unstructured.Unstructured) {
					l := c.GetLabels()
					l["kubefed.io/managed"] = "false"
					c.SetLabels(l)
				})
			},
			ref: "FederatedConfigMap shop/settings", cluster: "us-1", want: ManagedLabelFalse,
			message: `labelled kubefed.io/managed: "false"; fedctl does not touch it`,
		},
		{
			name:   "a member that does not answer is ClusterNotReady",
			change: func(f *fixture) { f.members["us-1"].SetDown(errRefused) },
			ref:    "FederatedDeployment shop/web", cluster: "us-1", want: ClusterNotReady,
			message: "dial tcp 127.0.0.1:1: connect: connection refused",
		},
		{
			name: "a type the member does not serve is TypeNotServed",
			change: func(f *fixture) {
				f.members["us-1"].Unserve(deployType)
			},
			ref: "FederatedDeployment shop/web", cluster: "us-1", want: TypeNotServed,
			message: "type apps/v1 Deployment is not served by this cluster; install its CRD there first",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, manifests)
			f.apply(t)
			tt.change(f)
			r := Read(context.Background(), f.input())
			got := statusOf(r, tt.ref, tt.cluster)
			assert.Equal(t, tt.want, got.Propagation())
			assert.Equal(t, tt.message, got.Message)
			for _, o := range r.Items {
				if o.Ref() == tt.ref {
					assert.Equal(t, Condition{Type: "Propagation", Status: "False", Reason: CheckClusters}, o.Status.Conditions[0])
				}
			}
			if tt.want == ClusterNotReady {
				assert.Equal(t, []string{"us-1"}, r.Failed())
				assert.Equal(t, Unknown, got.Readiness)
				assert.Equal(t, OK, statusOf(r, tt.ref, "eu-1").Propagation(), "the other member is read all the same")
			} else {
				assert.Empty(t, r.Failed())
			}
		})
	}
}

func TestReadUnplacedAndUnplaceable(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	// The Deployment leaves us-1; a ConfigMap in a namespace nobody
	// federates; one with an invalid selector; one whose override fails.
	f2 := newFixture(t, strings.Replace(manifests, "clusters: [{name: eu-1}, {name: us-1}]", "clusters: [{name: eu-1}]", 1)+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: homeless, namespace: nowhere}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: badselector, namespace: shop}
spec:
  template: {data: {k: v}}
  placement:
    clusterSelector:
      matchExpressions: [{key: region, operator: Near, values: [eu]}]
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: patched, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: us-1
    clusterOverrides: [{op: remove, path: /data/missing}]
`)
	f2.members = f.members
	r := Read(context.Background(), f2.input())
	removal := statusOf(r, "FederatedDeployment shop/web", "us-1")
	assert.Equal(t, WaitingForRemoval, removal.Status)
	assert.Equal(t, "no longer placed here; fedctl apply deletes it", removal.Message)
	assert.Equal(t, OK, statusOf(r, "FederatedDeployment shop/web", "eu-1").Propagation())
	assert.Equal(t, ApplyOverridesFailed, statusOf(r, "FederatedConfigMap shop/patched", "us-1").Status)
	assert.Equal(t, NotApplied, statusOf(r, "FederatedConfigMap shop/patched", "eu-1").Status)
	for _, o := range r.Items {
		switch o.Ref() {
		case "FederatedConfigMap nowhere/homeless":
			assert.Equal(t, NamespaceNotFederated, o.Status.Conditions[0].Reason)
			assert.Empty(t, o.Status.Clusters)
		case "FederatedConfigMap shop/badselector":
			assert.Equal(t, ComputePlacementFailed, o.Status.Conditions[0].Reason)
			assert.Contains(t, o.Status.Conditions[0].Message, `"Near" is not a valid label selector operator`)
			assert.Contains(t, o.Status.Conditions[0].Message, "app.yaml:", "the message points at the file")
		}
	}
	var table bytes.Buffer
	tab, err := Table(r)
	require.NoError(t, err)
	require.NoError(t, tab.Write(&table, printers.TableOptions{Wide: true}))
	testutil.AssertGolden(t, []byte(strings.ReplaceAll(table.String(), filepath.Dir(f2.res.Placed[0].Object.Pos.File())+"/", "")), "testdata/states-wide.golden")
}

// TestReadOnlySomeMembers: with --cluster, an object placed only in members
// left out is not "placed in no member cluster": the table says where it
// is placed and that those members were not read.
func TestReadOnlySomeMembers(t *testing.T) {
	t.Parallel()
	f := newFixture(t, strings.Replace(manifests, "clusters: [{name: eu-1}, {name: us-1}]", "clusters: [{name: us-1}]", 1))
	in := f.input()
	in.Clusters = []string{"eu-1"}
	r := Read(context.Background(), in)
	var table bytes.Buffer
	tab, err := Table(r)
	require.NoError(t, err)
	require.NoError(t, tab.Write(&table, printers.TableOptions{Wide: true}))
	assert.Regexp(t, `Deployment\s+shop\s+web\s+<none>\s+OK\s+.*placed only in member clusters not read \(--cluster\): us-1\n`, table.String())
	assert.NotContains(t, table.String(), "placed in no member cluster")
	for _, o := range r.Items {
		assert.Empty(t, o.Status.Conditions[0].Message, "the condition is KubeFed's: %s", o.Ref())
	}
}

// TestReadCordoned: in a cordoned member apply creates nothing and removes
// nothing, so an object placed there and absent, or there and no longer
// placed, is Cordoned (not NotApplied or WaitingForRemoval, which say
// apply would act); the wait does not wait for it, and it is no drift.
func TestReadCordoned(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	f.setReady("eu-1")
	f.setReady("us-1")
	// us-1 cordoned: the Deployment leaves it in the manifests, and a new
	// ConfigMap is placed everywhere
	f2 := newFixture(t, strings.Replace(manifests, "clusters: [{name: eu-1}, {name: us-1}]", "clusters: [{name: eu-1}]", 1)+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: fresh, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`)
	f2.members = f.members
	in := f2.input()
	in.Cordoned = []string{"us-1"}
	r := Read(context.Background(), in)
	fresh := statusOf(r, "FederatedConfigMap shop/fresh", "us-1")
	assert.Equal(t, Cordoned, fresh.Status)
	assert.Contains(t, fresh.Message, "cordoned: apply creates no object there")
	kept := statusOf(r, "FederatedDeployment shop/web", "us-1")
	assert.Equal(t, Cordoned, kept.Status)
	assert.Contains(t, kept.Message, "the member is cordoned and keeps what runs there")
	assert.Equal(t, NotApplied, statusOf(r, "FederatedConfigMap shop/fresh", "eu-1").Status, "eu-1 is not cordoned")
	assert.Equal(t, 1, r.Summary.Propagation[NotApplied], "only eu-1's fresh ConfigMap is for apply to act on")
	assert.Equal(t, 1, r.Summary.Readiness[NotFound], "us-1's fresh ConfigMap will not come: not counted as a member object that is missing")

	// a type the cordoned member does not serve, whose CRD the input
	// holds (new, so not created there either), is Cordoned too, not
	// TypeNotServed, which would fail a wait at once; without its CRD in
	// the input, apply fails on the type there, and so says status
	f3 := newFixture(t, manifests)
	crdType := typeconfig.Type{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Plural: "customresourcedefinitions", Scope: typeconfig.Cluster}
	f3.members["us-1"] = newFakeMember(nsType, cmType, crdType)
	in3 := f3.input()
	in3.Cordoned = []string{"us-1"}
	assert.Equal(t, TypeNotServed, statusOf(Read(context.Background(), in3), "FederatedDeployment shop/web", "us-1").Status)
	crd := &federation.Object{}
	crd.Kind, crd.Name = "FederatedCustomResourceDefinition", "deployments.apps"
	withCRD := *f3.res
	withCRD.Targets = append(slices.Clone(withCRD.Targets), render.Target{Cluster: "us-1", Type: crdType, Source: crd,
		Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "deployments.apps"},
			"spec": map[string]any{"group": "apps", "names": map[string]any{"kind": "Deployment"}}}})
	in3.Result = &withCRD
	r3 := Read(context.Background(), in3)
	assert.Equal(t, Cordoned, statusOf(r3, "FederatedDeployment shop/web", "us-1").Status)
	assert.Equal(t, Cordoned, statusOf(r3, "FederatedCustomResourceDefinition deployments.apps", "us-1").Status, "the CRD, new, is kept out too")
	assert.Zero(t, r.Summary.Propagation[WaitingForRemoval])

	in.Clusters = []string{"us-1"}
	_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour, Applied: true})
	require.NoError(t, err, "nothing to wait for in the cordoned member")
}

// getRefused is a member that lists, and then refuses every GET: it went
// away halfway through the read.
type getRefused struct{ *memberstest.Fake }

func (g getRefused) Get(context.Context, members.Mapping, string, string) (*unstructured.Unstructured, error) {
	return nil, errRefused
}

// TestReadOverridesFailedShowsWhatRuns: an object whose overrides now
// fail in a member, where an earlier apply left it, is ApplyOverridesFailed
// with the live object's readiness, not NotFound: it still runs there.
func TestReadOverridesFailedShowsWhatRuns(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	broken := strings.Replace(manifests, "    data: {k: v}\n  placement: {clusterSelector: {}}\n",
		"    data: {k: v}\n  placement: {clusterSelector: {}}\n  overrides:\n  - clusterName: us-1\n    clusterOverrides: [{op: remove, path: /data/missing}]\n", 1)
	require.NotEqual(t, manifests, broken)
	f2 := newFixture(t, broken)
	f2.members = f.members
	r := Read(context.Background(), f2.input())
	st := statusOf(r, "FederatedConfigMap shop/settings", "us-1")
	assert.Equal(t, ApplyOverridesFailed, st.Status)
	assert.Equal(t, Current, st.Readiness, "the ConfigMap an earlier apply left runs")
	require.NotNil(t, st.Object)
	assert.Equal(t, "settings", st.Object.Name)
	for _, o := range r.Items {
		for _, c := range o.Status.Clusters {
			assert.NotEqual(t, WaitingForRemoval, c.Status, "%s in %s: still placed there", o.Ref(), c.Name)
		}
	}
}

// TestReadUnreadReplicaState: an object not sent to a member because its
// replica state could not be read there for the plan
// (render.UnreadStateError) is RetrievalFailed, which another read may
// mend, not ApplyOverridesFailed, which waiting cannot; what runs there
// is shown.
func TestReadUnreadReplicaState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	f.setReady("us-1")
	var web *federation.Object
	f.res.Targets = slices.DeleteFunc(f.res.Targets, func(tg render.Target) bool {
		if tg.Cluster == "us-1" && tg.Type.Kind == "Deployment" {
			web = tg.Source
			return true
		}
		return false
	})
	require.NotNil(t, web)
	f.res.Errors = append(f.res.Errors, &render.TargetError{Cluster: "us-1", Object: web, Err: web.Errorf("", "%w", &render.UnreadStateError{Why: "forbidden"})})
	r := Read(context.Background(), f.input())
	st := statusOf(r, "FederatedDeployment shop/web", "us-1")
	assert.Equal(t, RetrievalFailed, st.Status)
	assert.Contains(t, st.Message, "its replica state could not be read for the plan (forbidden)")
	assert.Equal(t, Current, st.Readiness, "what runs there is shown")
	assert.Equal(t, []string{"us-1"}, r.Unread())
}

// configMapsForbidden is a member whose user may not list ConfigMaps.
type configMapsForbidden struct{ *memberstest.Fake }

func (c configMapsForbidden) List(ctx context.Context, m members.Mapping, opts members.ListOptions) ([]unstructured.Unstructured, error) {
	if m.Resource.Resource == "configmaps" {
		return nil, apierrors.NewForbidden(m.Resource.GroupResource(), "", errors.New("user cannot list configmaps"))
	}
	return c.Fake.List(ctx, m, opts)
}

// TestReadOneTypeRefused: a member that answers but refuses one type's
// LIST is read for the others; that type's objects there are
// RetrievalFailed with the server's reason, and the member counts as
// partially read (Unread), not unreachable.
func TestReadOneTypeRefused(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	f.setReady("eu-1")
	f.setReady("us-1")
	in := f.input()
	in.Clients = func(c string) (members.Client, error) {
		if c == "us-1" {
			return configMapsForbidden{f.members[c]}, nil
		}
		return f.members[c], nil
	}
	r := Read(context.Background(), in)
	assert.Empty(t, r.Unreachable, "us-1 answered")
	cm := statusOf(r, "FederatedConfigMap shop/settings", "us-1")
	assert.Equal(t, RetrievalFailed, cm.Status)
	assert.Contains(t, cm.Message, "list configmaps")
	assert.Contains(t, cm.Message, "user cannot list configmaps")
	web := statusOf(r, "FederatedDeployment shop/web", "us-1")
	assert.Equal(t, OK, web.Propagation(), "its Deployments are read")
	assert.Equal(t, Current, web.Readiness)
	assert.Equal(t, OK, statusOf(r, "FederatedConfigMap shop/settings", "eu-1").Propagation())
	assert.Equal(t, []string{"us-1"}, r.Unread(), "exit 3: what us-1 holds of ConfigMaps is not known")
}

// TestReadMemberGoneHalfway: a member that stops answering during its read
// is ClusterNotReady for every object placed there, once each: the
// entries read before it went are replaced, not listed twice.
func TestReadMemberGoneHalfway(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	// absent from fedctl's list, so the read GETs it, last
	f.members["us-1"].Remove(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"))
	in := f.input()
	in.Clients = func(c string) (members.Client, error) {
		if c == "us-1" {
			return getRefused{f.members[c]}, nil
		}
		return f.members[c], nil
	}
	r := Read(context.Background(), in)
	require.Len(t, r.Unreachable, 1)
	for _, o := range r.Items {
		var us []string
		for _, c := range o.Status.Clusters {
			if c.Name == "us-1" {
				us = append(us, c.Status)
			}
		}
		assert.Equal(t, []string{ClusterNotReady}, us, o.Ref())
	}
	assert.Equal(t, 6, r.Summary.MemberObjects, "3 objects in each of 2 members, none counted twice")
}

func TestWait(t *testing.T) {
	t.Parallel()
	t.Run("returns once every placed member object is Current", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		go func() {
			time.Sleep(50 * time.Millisecond)
			f.setReady("us-1")
		}()
		var progress bytes.Buffer
		in := f.input()
		r, err := Wait(context.Background(), WaitInput{Input: &in, Interval: 10 * time.Millisecond, Progress: &progress})
		require.NoError(t, err)
		assert.Equal(t, 6, r.Summary.Readiness[Current])
		assert.Contains(t, progress.String(), "cluster us-1: Deployment shop/web: InProgress: Replicas: 0/2\n")
		assert.Contains(t, progress.String(), "cluster us-1: Deployment shop/web: Current: Deployment is available. Replicas: 2\n")
		assert.NotContains(t, progress.String(), "cluster eu-1", "objects Current from the start get no line")
		assert.True(t, strings.HasSuffix(progress.String(), "every member object is Current: 3 federated objects, 6 member objects: 6 Current; propagation: 6 OK\n"), progress.String())
	})
	t.Run("times out listing what is not Current by cluster", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		in := f.input()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.True(t, nr.TimedOut)
		assert.Equal(t, "timed out waiting: 2 member objects not Current\n  cluster eu-1:\n    Deployment shop/web: InProgress: Replicas: 0/2\n  cluster us-1:\n    Deployment shop/web: InProgress: Replicas: 0/2", err.Error())
	})
	t.Run("a Failed object ends the wait at once", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.members["us-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) {
			d.Object["status"] = map[string]any{"observedGeneration": d.GetGeneration(), "conditions": []any{
				map[string]any{"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded"},
			}}
		})
		in := f.input()
		start := time.Now()
		_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.False(t, nr.TimedOut)
		assert.Less(t, time.Since(start), time.Minute)
		assert.Equal(t, "1 member object cannot become Current\n  cluster us-1:\n    Deployment shop/web: Failed: Progress deadline exceeded", err.Error())
	})
	t.Run("after an apply, an object still not there ends the wait at once", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		f.members["us-1"].Remove(memberstest.KeyOf(memberstest.MappingOf(cmType), "shop", "settings")) // its write failed
		in := f.input()
		_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour, Applied: true})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.False(t, nr.TimedOut, "waiting cannot write it")
		assert.Contains(t, err.Error(), "1 member object cannot become Current\n  cluster us-1:\n    ConfigMap shop/settings: NotFound (NotApplied)")

		// status --wait (no apply just before) waits for it: another run
		// may apply it
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		_, err = Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		require.ErrorAs(t, err, &nr)
		assert.True(t, nr.TimedOut)
	})
	t.Run("a Drifted object is waited for: its readiness is the old version's", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		changed := newFixture(t, strings.Replace(manifests, "replicas: 2", "replicas: 3", 1)) // pushed, not applied yet
		changed.members = f.members
		in := changed.input()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.True(t, nr.TimedOut, "not \"every member object is Current\" before the new version is there")
		assert.Contains(t, err.Error(), "cluster eu-1:\n    Deployment shop/web: Current (Drifted): the manifests changed since fedctl last applied it")

		// after an apply, one still Drifted is a write that failed
		_, err = Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour, Applied: true})
		require.ErrorAs(t, err, &nr)
		assert.False(t, nr.TimedOut)
		assert.Contains(t, err.Error(), "2 member objects cannot become Current")

		// applied, it is Current and as the input gives it
		changed.apply(t)
		changed.setReady("eu-1")
		changed.setReady("us-1")
		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err = Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		require.NoError(t, err)
	})
	t.Run("a live view is redrawn in place on a terminal", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		go func() {
			time.Sleep(50 * time.Millisecond)
			f.setReady("eu-1")
			f.setReady("us-1")
		}()
		var progress bytes.Buffer
		in := f.input()
		_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: 10 * time.Millisecond, Progress: &progress, Live: true})
		require.NoError(t, err)
		out := progress.String()
		assert.True(t, strings.HasPrefix(out, "… cluster eu-1: 2/3 Current, waiting for Deployment shop/web: InProgress: Replicas: 0/2\n… cluster us-1: 2/3 Current, waiting for Deployment shop/web: InProgress: Replicas: 0/2\n"), out)
		assert.Contains(t, out, "\x1b[2A\x1b[J", "the two cluster lines are replaced")
		assert.Contains(t, out, "✓ cluster eu-1: 3/3 Current\n✓ cluster us-1: 3/3 Current\n")
	})
	t.Run("an object placed nowhere ends the wait at once", func(t *testing.T) {
		t.Parallel()
		// Its placement is invalid: no member object to wait for, and
		// waiting cannot place it.
		f := newFixture(t, manifests+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: badselector, namespace: shop}
spec:
  template: {data: {k: v}}
  placement:
    clusterSelector:
      matchExpressions: [{key: region, operator: Near, values: [eu]}]
`)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		in := f.input()
		_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.Equal(t, 1, nr.Failed)
		assert.True(t, nr.Objects[0].CannotBecomeCurrent())
		assert.Contains(t, err.Error(), "1 member object cannot become Current\n  placed in no member:\n    FederatedConfigMap shop/badselector: NotFound (ComputePlacementFailed): ")
		assert.Contains(t, err.Error(), `"Near" is not a valid label selector operator`)
	})
	t.Run("an object in a namespace nobody federates is not waited for", func(t *testing.T) {
		t.Parallel()
		// placed nowhere on purpose (render warns, apply applies the
		// rest): --wait, apply --wait and a rollout's wave pass
		f := newFixture(t, manifests+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: homeless, namespace: nowhere}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		in := f.input()
		_, err := Wait(context.Background(), WaitInput{Input: &in, Interval: time.Hour})
		require.NoError(t, err)
	})
	t.Run("a member whose read never ran is waited for, not forgotten", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		in := f.input()
		in.Clients = func(c string) (members.Client, error) {
			if c == "us-1" {
				panic("a bug in one member's read")
			}
			return f.members[c], nil
		}
		r := Read(context.Background(), in)
		require.Len(t, r.Unreachable, 1)
		assert.Equal(t, ClusterNotReady, statusOf(r, "FederatedDeployment shop/web", "us-1").Status, "the objects placed in us-1 are not known, not absent")
		assert.Equal(t, Unknown, statusOf(r, "FederatedConfigMap shop/settings", "us-1").Readiness)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr, "us-1's objects are pending: the wait does not pass")
		assert.True(t, nr.TimedOut)
		assert.Len(t, nr.Objects, 3)
	})
	t.Run("a member whose client never comes ends with the wait's time", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.setReady("us-1")
		stuck := make(chan struct{})
		defer close(stuck) // a wait that waited for us-1 would never return
		in := f.input()
		in.Timeout = time.Minute // the member's own time is not what ends it
		in.Clients = func(c string) (members.Client, error) {
			if c == "us-1" {
				<-stuck // an exec credential plugin that hangs: no context reaches it
			}
			return f.members[c], nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		r, err := Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr)
		assert.True(t, nr.TimedOut)
		require.Len(t, r.Unreachable, 1)
		assert.Equal(t, "us-1", r.Unreachable[0].Name)
		assert.Contains(t, r.Unreachable[0].Error, "no answer in time")
		assert.Equal(t, ClusterNotReady, statusOf(r, "FederatedDeployment shop/web", "us-1").Status)
		assert.Equal(t, Current, statusOf(r, "FederatedDeployment shop/web", "eu-1").Readiness)
	})
	t.Run("a handed-off object is not waited for: apply does not touch it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		f.apply(t)
		f.setReady("eu-1")
		f.members["us-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) {
			labels := d.GetLabels()
			labels[federation.ManagedLabel] = "false"
			d.SetLabels(labels)
		})
		in := f.input()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := Wait(ctx, WaitInput{Input: &in, Interval: 10 * time.Millisecond})
		require.NoError(t, err, "us-1's Deployment is InProgress, but handed off")
		assert.Equal(t, ManagedLabelFalse, statusOf(r, "FederatedDeployment shop/web", "us-1").Status)
		assert.Equal(t, InProgress, statusOf(r, "FederatedDeployment shop/web", "us-1").Readiness)
	})
	t.Run("an object looked up by name is waited for until a member holds it", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, manifests)
		lookup := LookupInput{Type: cmType, Namespace: "shop", Name: "settings", Clusters: []string{"eu-1", "us-1"},
			Clients: func(c string) (members.Client, error) { return f.members[c], nil }}
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		var progress bytes.Buffer
		_, err := Wait(ctx, WaitInput{Lookup: &lookup, Interval: 10 * time.Millisecond, Progress: &progress})
		var nr *NotReadyError
		require.ErrorAs(t, err, &nr, "held by no member: nothing is Current yet")
		assert.True(t, nr.TimedOut)
		assert.Equal(t, "timed out waiting: no member cluster read holds the object", err.Error())
		assert.NotContains(t, progress.String(), "every member object is Current")
		assert.Equal(t, "no member cluster holds an object of FederatedConfigMap/shop/settings yet; waiting for one to appear\n", progress.String(), "said once, not at every read")

		applied := make(chan *propagate.Report, 1)
		go func() {
			time.Sleep(50 * time.Millisecond)
			in := f.input()
			applied <- propagate.Run(context.Background(), propagate.Input{Result: f.res, Clusters: in.Clusters, Clients: in.Clients})
		}()
		ctx, cancel = context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := Wait(ctx, WaitInput{Lookup: &lookup, Interval: 10 * time.Millisecond})
		require.NoError(t, err, "the ConfigMap is Current once applied")
		assert.Equal(t, 2, r.Summary.MemberObjects)
		assert.Empty(t, (<-applied).Failed())
	})
	t.Run("needs exactly one of Input and Lookup", func(t *testing.T) {
		t.Parallel()
		_, err := Wait(context.Background(), WaitInput{})
		require.EqualError(t, err, "status.Wait needs exactly one of Input and Lookup")
	})
}

func TestLookup(t *testing.T) {
	t.Parallel()
	f := newFixture(t, manifests)
	f.apply(t)
	f.setReady("eu-1")
	f.members["us-1"].Edit(memberstest.KeyOf(memberstest.MappingOf(deployType), "shop", "web"), func(d *unstructured.Unstructured) { d.SetGeneration(5) })
	in := LookupInput{Type: deployType, Namespace: "shop", Name: "web", Clusters: []string{"eu-1", "us-1"},
		Clients: func(c string) (members.Client, error) { return f.members[c], nil }}
	assert.Equal(t, "FederatedDeployment/shop/web", in.Source())
	r := Lookup(context.Background(), in)
	require.Len(t, r.Items, 1)
	assert.Equal(t, "FederatedDeployment shop/web", r.Items[0].Ref())
	assert.Equal(t, OK, statusOf(r, "FederatedDeployment shop/web", "eu-1").Propagation())
	assert.Equal(t, Drifted, statusOf(r, "FederatedDeployment shop/web", "us-1").Status)

	ns := LookupInput{Type: nsType, Namespace: "ignored", Name: "shop"}
	assert.Equal(t, "FederatedNamespace/shop/shop", ns.Source(), "a FederatedNamespace lives in itself")
	cm := LookupInput{Type: typeconfig.Type{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Plural: "clusterroles", Scope: typeconfig.Cluster}, Namespace: "ignored", Name: "reader"}
	assert.Equal(t, "FederatedClusterRole/reader", cm.Source())

	f.members["us-1"].SetDown(errRefused)
	in.Name = "nothing"
	r = Lookup(context.Background(), in)
	require.Len(t, r.Items[0].Status.Clusters, 1, "only the member that could not be read")
	assert.Equal(t, ClusterNotReady, r.Items[0].Status.Clusters[0].Status)
}

func TestSummaryString(t *testing.T) {
	t.Parallel()
	s := Summary{FederatedObjects: 1, MemberObjects: 3, Readiness: map[string]int{Failed: 1, Current: 1, InProgress: 1},
		Propagation: map[string]int{Drifted: 1, OK: 2}, Reasons: map[string]int{NamespaceNotFederated: 1}}
	assert.Equal(t, "1 federated object, 3 member objects: 1 Current, 1 InProgress, 1 Failed; propagation: 2 OK, 1 Drifted; not placed: 1 NamespaceNotFederated", s.String())
}

// TestReadManifestChanges: a manifest changed since the last apply is
// Drifted, except for the replica count of a federated object with
// spec.retainReplicas, which apply leaves to whoever scales the object.
func TestReadManifestChanges(t *testing.T) {
	t.Parallel()
	retain := strings.Replace(manifests, "  template:\n    spec:\n      replicas: 2", "  retainReplicas: true\n  template:\n    spec:\n      replicas: 2", 1)
	require.NotEqual(t, manifests, retain)
	tests := []struct {
		name          string
		applied, read string
		want          string
		message       string
	}{
		{name: "new replicas are Drifted", applied: manifests, read: strings.Replace(manifests, "replicas: 2", "replicas: 3", 1),
			want: Drifted, message: "the manifests changed since fedctl last applied it"},
		{name: "new replicas with retainReplicas are not", applied: retain, read: strings.Replace(retain, "replicas: 2", "replicas: 3", 1), want: OK},
		{name: "a new image with retainReplicas is", applied: retain, read: strings.Replace(retain, "image: nginx", "image: nginx:2", 1),
			want: Drifted, message: "the manifests changed since fedctl last applied it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NotEqual(t, tt.applied, tt.read)
			f := newFixture(t, tt.applied)
			f.apply(t)
			changed := newFixture(t, tt.read)
			changed.members = f.members
			r := Read(context.Background(), changed.input())
			for _, c := range []string{"eu-1", "us-1"} {
				got := statusOf(r, "FederatedDeployment shop/web", c)
				assert.Equal(t, tt.want, got.Propagation(), c)
				assert.Equal(t, tt.message, got.Message, c)
			}
		})
	}
}
