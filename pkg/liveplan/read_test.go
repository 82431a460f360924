package liveplan_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/liveplan"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	deployments = typeconfig.Type{Group: "apps", Version: "v1", Kind: "Deployment", Plural: "deployments", Scope: typeconfig.Namespaced}
	pods        = typeconfig.Type{Version: "v1", Kind: "Pod", Plural: "pods", Scope: typeconfig.Namespaced}
)

const input = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  placement: {clusterSelector: {}}
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: shop}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`

// world is a federation whose members answer /healthz from test servers
// (healthy says which do) and whose objects are in fakes.
type world struct {
	fed    *members.Federation
	access members.Access
	fakes  map[string]*memberstest.Fake
	set    *federation.Set
}

func newWorld(t *testing.T, healthy map[string]bool) *world {
	t.Helper()
	w := &world{fed: members.New(), fakes: map[string]*memberstest.Fake{}}
	var kubeconfig strings.Builder
	kubeconfig.WriteString("apiVersion: v1\nkind: Config\nusers: [{name: u, user: {token: t}}]\nclusters:\n")
	var contexts strings.Builder
	for _, name := range []string{"a", "b", "c"} {
		ok := healthy[name]
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/version":
				fmt.Fprint(rw, `{"gitVersion":"v1.33.0"}`)
			case r.URL.Path == "/healthz" && ok:
				fmt.Fprint(rw, "ok")
			default:
				http.Error(rw, "etcd failed", http.StatusInternalServerError)
			}
		}))
		t.Cleanup(srv.Close)
		fmt.Fprintf(&kubeconfig, "- {name: %s, cluster: {server: %q}}\n", name, srv.URL)
		fmt.Fprintf(&contexts, "- {name: %s, context: {cluster: %s, user: u}}\n", name, name)
		require.NoError(t, w.fed.Put(members.Member{Name: name}, false))
		w.fakes[name] = memberstest.New(deployments, pods)
	}
	kubeconfig.WriteString("contexts:\n" + contexts.String())
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(kubeconfig.String()), 0o600))
	w.access = members.Access{Kubeconfig: path, Timeout: 5 * time.Second}

	docs, err := manifest.Split("app.yaml", []byte(input))
	require.NoError(t, err)
	var clusters []placement.Cluster
	for _, m := range w.fed.Clusters {
		clusters = append(clusters, placement.Cluster{Name: m.Name})
	}
	w.set, err = pipeline.Decode(docs, typeconfig.Builtin(), "default", clusters)
	require.NoError(t, err)
	return w
}

func (w *world) read(opts liveplan.Options) *render.Live {
	opts.Access = w.access
	opts.Clients = func(name string) (members.Client, error) { return w.fakes[name], nil }
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second
	}
	return liveplan.Read(context.Background(), w.fed, w.set, opts)
}

// putDeployment puts shop/web in member with spec and ready replicas,
// fedctl's (owned) or not.
func (w *world) putDeployment(member string, spec, ready int64, owned bool) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "shop"},
		"spec":     map[string]any{"replicas": spec, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}}},
		"status":   map[string]any{"readyReplicas": ready},
	}}
	if owned {
		obj.SetLabels(map[string]string{federation.ManagedByLabel: federation.ManagedByValue})
	}
	w.fakes[member].Put(memberstest.KeyOf(memberstest.MappingOf(deployments), "shop", "web"), obj)
}

// putPod puts a pod of web in member: running and ready, or unschedulable
// since the given time.
func (w *world) putPod(member, name string, running bool, since time.Time) {
	status := map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if !running {
		status = map[string]any{"phase": "Pending", "conditions": []any{map[string]any{
			"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "lastTransitionTime": since.UTC().Format(time.RFC3339)}}}
	}
	w.fakes[member].Put(memberstest.KeyOf(memberstest.MappingOf(pods), "shop", name), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{"name": name, "namespace": "shop", "labels": map[string]any{"app": "web"}},
		"status":   status,
	}})
}

// TestReadReplicaState: each answering member's current replicas are what
// KubeFed's planner reads: ready replicas when they equal the spec's,
// else the running and ready pods, with a capacity when pods have been
// unschedulable for longer than the threshold. Objects fedctl does not own
// and members without the object give no figures.
func TestReadReplicaState(t *testing.T) {
	w := newWorld(t, map[string]bool{"a": true, "b": true, "c": true})
	now := time.Now()
	w.putDeployment("a", 3, 3, true)
	w.putDeployment("b", 4, 1, true)
	w.putPod("b", "web-1", true, now)
	w.putPod("b", "web-2", false, now.Add(-5*time.Minute))
	w.putPod("b", "web-3", false, now.Add(-10*time.Second)) // not long enough to count
	w.putDeployment("c", 5, 5, false)                       // someone else's

	live := w.read(liveplan.Options{Now: func() time.Time { return now }})
	assert.Equal(t, []string{"a", "b", "c"}, live.Answering)
	assert.Empty(t, live.Why)
	got := live.Replicas["FederatedDeployment/shop/web"]
	assert.Equal(t, map[string]int64{"a": 3, "b": 1}, got.Current, "c's Deployment is not fedctl's")
	assert.Equal(t, map[string]int64{"a": 3, "b": 4}, got.Spec)
	assert.Equal(t, map[string]int64{"b": 3}, got.Capacity, "b: 4 wanted, 1 pod unschedulable for over a minute")
	assert.NotContains(t, w.fakes["a"].Calls(), "LIST pods", "a is ready: its pods are not read")
	assert.Contains(t, w.fakes["b"].Calls(), "LIST pods")
}

// TestReadMembersThatDoNotAnswer: a member whose /healthz fails, and one
// whose replica state cannot be read, are left out of Answering with the
// reason; the others are read as usual.
func TestReadMembersThatDoNotAnswer(t *testing.T) {
	w := newWorld(t, map[string]bool{"a": true, "c": true})
	w.putDeployment("a", 2, 2, true)
	w.fakes["c"].SetDown(errors.New("connection reset by peer"))

	live := w.read(liveplan.Options{})
	assert.Equal(t, []string{"a"}, live.Answering)
	assert.Contains(t, live.Why["b"], "etcd failed", "b: its /healthz answer")
	assert.Contains(t, live.Why["c"], "its replica state could not be read")
	assert.Contains(t, live.Why["c"], "connection reset by peer")
	assert.Empty(t, w.fakes["b"].Calls(), "a member that is not ready is not read")
	assert.Equal(t, map[string]int64{"a": 2}, live.Replicas["FederatedDeployment/shop/web"].Current)
}

// getForbidden refuses every GET, as an RBAC rule that lets fedctl list
// but not get Deployments would.
type getForbidden struct{ members.Client }

func (getForbidden) Get(_ context.Context, m members.Mapping, _, name string) (*unstructured.Unstructured, error) {
	return nil, apierrors.NewForbidden(m.Resource.GroupResource(), name, errors.New("not allowed"))
}

// getBroken loses every GET's connection: the member stopped answering
// after its health check.
type getBroken struct{ members.Client }

func (getBroken) Get(context.Context, members.Mapping, string, string) (*unstructured.Unstructured, error) {
	return nil, errors.New("connection refused")
}

// TestReadTargetUnread: a member that answers but refuses one target's
// read stays answering; the target alone is marked unread there, with
// why, and gets no figures from it. One whose read fails for want of an
// answer does not answer.
func TestReadTargetUnread(t *testing.T) {
	w := newWorld(t, map[string]bool{"a": true, "b": true, "c": true})
	for _, m := range []string{"a", "b", "c"} {
		w.putDeployment(m, 2, 2, true)
	}
	live := liveplan.Read(context.Background(), w.fed, w.set, liveplan.Options{Access: w.access, Timeout: 5 * time.Second,
		Clients: func(name string) (members.Client, error) {
			switch name {
			case "b":
				return getForbidden{w.fakes[name]}, nil
			case "c":
				return getBroken{w.fakes[name]}, nil
			}
			return w.fakes[name], nil
		}})
	assert.Equal(t, []string{"a", "b"}, live.Answering, "b answered, c did not")
	assert.Contains(t, live.Why["c"], "connection refused")
	assert.NotContains(t, live.Why, "b")
	got := live.Replicas["FederatedDeployment/shop/web"]
	assert.Equal(t, map[string]int64{"a": 2}, got.Spec)
	require.Contains(t, got.Unread, "b")
	assert.NotContains(t, got.Unread, "c")
	assert.Contains(t, got.Unread["b"], "forbidden")
}

// TestReadOfflinePlan: --offline-plan asks who answers and reads no
// replica state; so does a set without replica plans.
func TestReadOfflinePlan(t *testing.T) {
	w := newWorld(t, map[string]bool{"a": true, "b": true})
	w.putDeployment("a", 2, 2, true)
	live := w.read(liveplan.Options{OfflinePlan: true, KeepShares: true})
	assert.Equal(t, []string{"a", "b"}, live.Answering)
	assert.True(t, live.KeepShares)
	assert.Empty(t, live.Replicas)
	assert.Contains(t, live.Why, "c")
	for name, f := range w.fakes {
		assert.Empty(t, f.Calls(), "%s: no replica state is read", name)
	}

	w.set.RSPs = nil
	live = w.read(liveplan.Options{})
	assert.Equal(t, []string{"a", "b"}, live.Answering)
	assert.Empty(t, live.Replicas)
	for name, f := range w.fakes {
		assert.Empty(t, f.Calls(), "%s: no plan, no read", name)
	}
}
