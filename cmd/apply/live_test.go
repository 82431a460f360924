package apply

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var (
	clusterNames = []string{"cluster1", "cluster2", "cluster3"}
	nsGVR        = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	cmGVR        = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	svcGVR       = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	deployGVR    = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	widgetGVR    = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	crdGVR       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	widgetType   = typeconfig.Type{Group: "example.com", Version: "v1", Kind: "Widget", Plural: "widgets", Scope: typeconfig.Namespaced}
)

// requestCounter counts the requests fedctl sends, per member and method,
// from the request log members.Access writes (one line per request:
// "[cluster1] PATCH https://... 200 OK in 3ms").
type requestCounter struct {
	mu     sync.Mutex
	counts map[string]map[string]int // member -> method -> requests
	lists  map[string]int            // member -> label-selected LISTs
	// discoveries counts the GETs of /api and /apis: one each for every
	// discovery of a member's types.
	discoveries map[string]int
}

func (c *requestCounter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, line := range strings.Split(strings.TrimSpace(string(p)), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		member := strings.Trim(f[0], "[]")
		if c.counts[member] == nil {
			c.counts[member] = map[string]int{}
		}
		c.counts[member][f[1]]++
		if f[1] == "GET" && strings.Contains(f[2], "labelSelector=") {
			c.lists[member]++
		}
		if u, err := url.Parse(f[2]); err == nil && f[1] == "GET" && (u.Path == "/api" || u.Path == "/apis") {
			c.discoveries[member]++
		}
	}
	return len(p), nil
}

// writes is the number of requests that change something in member.
func (c *requestCounter) writes(member string) int {
	m := c.counts[member]
	return m["POST"] + m["PUT"] + m["PATCH"] + m["DELETE"]
}

func (c *requestCounter) total(member string) int {
	n := 0
	for _, v := range c.counts[member] {
		n += v
	}
	return n
}

type applyRun struct {
	out, errOut string
	err         error
	report      propagate.Report
	requests    *requestCounter
}

// action is what happened to kind namespace/name in cluster ("" if not
// reported).
func (r applyRun) action(cluster, kind, namespace, name string) propagate.Action {
	for _, c := range r.report.Clusters {
		if c.Cluster != cluster {
			continue
		}
		for _, o := range c.Objects {
			if o.Kind == kind && o.Namespace == namespace && o.Name == name {
				return o.Action
			}
		}
	}
	return ""
}

func (r applyRun) object(cluster, kind, namespace, name string) propagate.ObjectResult {
	for _, c := range r.report.Clusters {
		for _, o := range c.Objects {
			if c.Cluster == cluster && o.Kind == kind && o.Namespace == namespace && o.Name == name {
				return o
			}
		}
	}
	return propagate.ObjectResult{}
}

func federationOf(types ...typeconfig.Type) *members.Federation {
	fed := members.New()
	for i, c := range clusterNames {
		_ = fed.Put(members.Member{Name: c, Labels: map[string]string{"region": []string{"eu", "eu", "us"}[i]}}, false)
	}
	fed.Types = types
	return fed
}

// runApply runs "fedctl apply -o json ARGS" against the test clusters.
func runApply(t *testing.T, fed *members.Federation, args ...string) applyRun {
	t.Helper()
	return runApplyWith(t, fed, nil, args...)
}

// runApplyWith is runApply with each member's Client passed through wrap
// (when set), to act from inside a run.
func runApplyWith(t *testing.T, fed *members.Federation, wrap func(cluster string, a members.Client) members.Client, args ...string) applyRun {
	t.Helper()
	return runApplyVia(t, fed, testenv.Require(t, env).Kubeconfig, wrap, args...)
}

// runApplyVia is runApplyWith with the members' contexts in kubeconfig.
func runApplyVia(t *testing.T, fed *members.Federation, kubeconfig string, wrap func(cluster string, a members.Client) members.Client, args ...string) applyRun {
	t.Helper()
	testenv.Require(t, env)
	ios, _, out, errOut := iostreams.Test()
	counter := &requestCounter{counts: map[string]map[string]int{}, lists: map[string]int{}, discoveries: map[string]int{}}
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) {
			return members.Access{Kubeconfig: kubeconfig, RequestLog: counter}, nil
		},
	}
	var runF func(*ApplyOptions) error
	if wrap != nil {
		runF = func(o *ApplyOptions) error {
			real := o.NewClient
			o.NewClient = func(a members.Access, m members.Member) (members.Client, error) {
				client, err := real(a, m)
				if err != nil {
					return nil, err
				}
				return wrap(m.Name, client), nil
			}
			return o.Run(context.Background())
		}
	}
	cmd := NewCmdApply(f, runF)
	cmd.SetArgs(append([]string{"-o", "json"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	r := applyRun{out: out.String(), errOut: errOut.String(), err: err, requests: counter}
	if out.Len() > 0 {
		require.NoError(t, json.Unmarshal(out.Bytes(), &r.report), out.String())
	}
	t.Logf("stderr:\n%s", r.errOut)
	return r
}

func client(t *testing.T, cluster string) dynamic.Interface {
	t.Helper()
	cfg, err := testenv.Require(t, env).RESTConfig(cluster)
	require.NoError(t, err)
	c, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return c
}

func get(t *testing.T, cluster string, gvr schema.GroupVersionResource, namespace, name string) (*unstructured.Unstructured, error) {
	t.Helper()
	var ri dynamic.ResourceInterface = client(t, cluster).Resource(gvr)
	if namespace != "" {
		ri = client(t, cluster).Resource(gvr).Namespace(namespace)
	}
	return ri.Get(context.Background(), name, metav1.GetOptions{})
}

func mustGet(t *testing.T, cluster string, gvr schema.GroupVersionResource, namespace, name string) *unstructured.Unstructured {
	t.Helper()
	obj, err := get(t, cluster, gvr, namespace, name)
	require.NoError(t, err, "%s %s/%s in %s", gvr.Resource, namespace, name, cluster)
	return obj
}

// write writes the manifests file in dir, replacing it.
func write(t *testing.T, dir, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifests.yaml"), []byte(content), 0o600))
}

func namespaceDoc(ns string) string {
	return fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata:
  name: %s
  namespace: %s
spec:
  placement:
    clusterSelector: {}
`, ns, ns)
}

func configMapDoc(ns, name, value, placement string, annotations string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: %s
  namespace: %s
%s
spec:
  template:
    data:
      k: %q
  placement:
%s
`, name, ns, annotations, value, placement)
}

const allClusters = "    clusterSelector: {}"

func deploymentDoc(ns, name, image string, replicas int, extraSpec, placement, annotations string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata:
  name: %s
  namespace: %s
%s
spec:
%s
  template:
    spec:
      replicas: %d
      selector:
        matchLabels: {app: %s}
      template:
        metadata:
          labels: {app: %s}
        spec:
          containers:
          - name: web
            image: %s
  placement:
%s
`, name, ns, annotations, extraSpec, replicas, name, name, image, placement)
}

// rspDoc is a ReplicaSchedulingPreference for the FederatedDeployment
// ns/name: total replicas over every member, weight 1 each (an empty
// clusters map).
func rspDoc(ns, name string, total int) string {
	return fmt.Sprintf(`---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: %s, namespace: %s}
spec: {targetKind: FederatedDeployment, totalReplicas: %d}
`, name, ns, total)
}

func serviceDoc(ns, name, label string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedService
metadata:
  name: %s
  namespace: %s
spec:
  template:
    metadata:
      labels: {rev: %q}
    spec:
      type: NodePort
      selector: {app: %s}
      ports:
      - name: http
        port: 80
        targetPort: 8080
  placement:
    clusterSelector: {}
`, name, ns, label, name)
}

func assertAll(t *testing.T, r applyRun, kind, ns, name string, want propagate.Action) {
	t.Helper()
	for _, c := range clusterNames {
		assert.Equal(t, want, r.action(c, kind, ns, name), "%s %s/%s in %s", kind, ns, name, c)
	}
}

// TestApplyLifecycle creates, re-applies without change (zero writes),
// updates, de-places and orphans, on three members.
func TestApplyLifecycle(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "life"
	manifests := func(cmValue, cmPlacement, svcRev, deployPlacement, deployAnnotations string) string {
		return namespaceDoc(ns) + configMapDoc(ns, "cfg", cmValue, cmPlacement, "") +
			deploymentDoc(ns, "web", "nginx:1.27", 2, "", deployPlacement, deployAnnotations) + serviceDoc(ns, "web", svcRev)
	}
	write(t, dir, manifests("v1", allClusters, "1", allClusters, ""))

	// create
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, kind := range []string{"ConfigMap", "Deployment", "Service"} {
		assertAll(t, r, kind, ns, map[string]string{"ConfigMap": "cfg"}[kind]+map[bool]string{true: "web"}[kind != "ConfigMap"], propagate.Created)
	}
	assertAll(t, r, "Namespace", "", ns, propagate.Created)
	ports := map[string][]any{}
	clusterIPs := map[string]string{}
	for _, c := range clusterNames {
		cm := mustGet(t, c, cmGVR, ns, "cfg")
		assert.Equal(t, "v1", cm.Object["data"].(map[string]any)["k"])
		assert.Equal(t, "fedctl", cm.GetLabels()[federation.ManagedByLabel])
		assert.NotEmpty(t, cm.GetAnnotations()[federation.HashAnnotation])
		d := mustGet(t, c, deployGVR, ns, "web")
		assert.Equal(t, fmt.Sprint(d.GetGeneration()), d.GetAnnotations()[federation.GenerationAnnotation], "the generation fedctl left it at")
		svc := mustGet(t, c, svcGVR, ns, "web")
		ports[c], _, _ = unstructured.NestedSlice(svc.Object, "spec", "ports")
		clusterIPs[c], _, _ = unstructured.NestedString(svc.Object, "spec", "clusterIP")
		require.NotEmpty(t, clusterIPs[c])
	}

	// no-op re-apply: no write, one LIST per type after discovery
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "writes to %s: %v", c, r.requests.counts[c])
		assert.Equal(t, 4, r.requests.lists[c], "one LIST per type in %s: %v", c, r.requests.counts[c])
		t.Logf("no-op re-apply of 4 objects, %s: %d requests %v", c, r.requests.total(c), r.requests.counts[c])
	}
	for _, kind := range []string{"ConfigMap", "Deployment", "Service"} {
		assertAll(t, r, kind, ns, map[string]string{"ConfigMap": "cfg"}[kind]+map[bool]string{true: "web"}[kind != "ConfigMap"], propagate.Unchanged)
	}

	// update: new data and a new Service label; the Service keeps the
	// cluster IP and node ports the API server gave it (server-side apply
	// leaves fields fedctl never set to their owner, where KubeFed kept them
	// by hand in pkg/controller/sync/dispatch/retain.go)
	write(t, dir, manifests("v2", allClusters, "2", allClusters, ""))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Configured)
	assertAll(t, r, "Service", ns, "web", propagate.Configured)
	assertAll(t, r, "Deployment", ns, "web", propagate.Unchanged)
	for _, c := range clusterNames {
		assert.Equal(t, 2, r.requests.writes(c), "one apply each for the ConfigMap and the Service in %s", c)
		cm := mustGet(t, c, cmGVR, ns, "cfg")
		assert.Equal(t, "v2", cm.Object["data"].(map[string]any)["k"])
		svc := mustGet(t, c, svcGVR, ns, "web")
		got, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
		assert.Equal(t, ports[c], got, "node ports kept in %s", c)
		ip, _, _ := unstructured.NestedString(svc.Object, "spec", "clusterIP")
		assert.Equal(t, clusterIPs[c], ip)
		assert.Equal(t, "2", svc.GetLabels()["rev"])
	}

	// de-placement: cfg leaves cluster3; web leaves cluster2 and cluster3
	// but is orphaned there
	write(t, dir, manifests("v2", "    clusters: [{name: cluster1}, {name: cluster2}]", "2",
		"    clusters: [{name: cluster1}]", "  annotations: {kubefed.io/orphan: \"true\"}"))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Deleted, r.action("cluster3", "ConfigMap", ns, "cfg"))
	assert.Equal(t, propagate.Unchanged, r.action("cluster2", "ConfigMap", ns, "cfg"))
	_, err := get(t, "cluster3", cmGVR, ns, "cfg")
	assert.True(t, apierrors.IsNotFound(err), "cfg gone from cluster3: %v", err)
	mustGet(t, "cluster2", cmGVR, ns, "cfg")
	for _, c := range []string{"cluster2", "cluster3"} {
		assert.Equal(t, propagate.Orphaned, r.action(c, "Deployment", ns, "web"))
		d := mustGet(t, c, deployGVR, ns, "web")
		assert.NotContains(t, d.GetLabels(), federation.ManagedByLabel)
		assert.NotContains(t, d.GetLabels(), federation.ManagedLabel)
		assert.NotContains(t, d.GetAnnotations(), federation.SourceAnnotation)
		assert.NotContains(t, d.GetAnnotations(), federation.HashAnnotation)
	}
	assert.Equal(t, propagate.Unchanged, r.action("cluster1", "Deployment", ns, "web"))

	// and the next run leaves what it no longer manages alone
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "writes to %s", c)
	}
	mustGet(t, "cluster3", deployGVR, ns, "web")
}

func assertPartial(t *testing.T, err error, failed ...string) {
	t.Helper()
	var partial *cmdutil.PartialError
	require.ErrorAs(t, err, &partial)
	assert.Equal(t, failed, partial.Failed)
}

func createObject(t *testing.T, cluster string, gvr schema.GroupVersionResource, obj map[string]any, manager string) {
	t.Helper()
	u := &unstructured.Unstructured{Object: obj}
	_, err := client(t, cluster).Resource(gvr).Namespace(u.GetNamespace()).Create(context.Background(), u, metav1.CreateOptions{FieldManager: manager})
	require.NoError(t, err)
}

// update changes an object as kubectl edit would: an Update by another
// field manager.
func update(t *testing.T, cluster string, gvr schema.GroupVersionResource, ns, name, manager string, change func(*unstructured.Unstructured)) {
	t.Helper()
	obj := mustGet(t, cluster, gvr, ns, name)
	change(obj)
	_, err := client(t, cluster).Resource(gvr).Namespace(ns).Update(context.Background(), obj, metav1.UpdateOptions{FieldManager: manager})
	require.NoError(t, err)
}

// TestApplyFieldOwnedByAnotherManager: a field fedctl applied is changed by
// another manager; the next apply fails in that member only, naming the
// field and the manager, and --force-conflicts takes it back. The
// Deployment's change is found through its generation alone.
func TestApplyFieldOwnedByAnotherManager(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "conflict"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", dir).err)

	update(t, "cluster1", cmGVR, ns, "cfg", "kubectl-edit", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "edited", "data", "k"))
	})
	update(t, "cluster2", deployGVR, ns, "web", "kubectl-edit", func(u *unstructured.Unstructured) {
		containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		containers[0].(map[string]any)["image"] = "nginx:edited"
		require.NoError(t, unstructured.SetNestedSlice(u.Object, containers, "spec", "template", "spec", "containers"))
	})

	r := runApply(t, fed, "-f", dir)
	assertPartial(t, r.err, "cluster1", "cluster2")
	cm := r.object("cluster1", "ConfigMap", ns, "cfg")
	assert.Equal(t, propagate.Failed, cm.Action)
	assert.Equal(t, propagate.ReasonConflict, cm.Reason)
	assert.Contains(t, cm.Error, `conflict with "kubectl-edit"`)
	assert.Contains(t, cm.Error, ".data.k")
	assert.Contains(t, cm.Error, "--force-conflicts")
	d := r.object("cluster2", "Deployment", ns, "web")
	assert.Equal(t, propagate.Failed, d.Action)
	assert.Contains(t, d.Error, `conflict with "kubectl-edit"`)
	assert.Contains(t, d.Error, ".image")
	assert.Equal(t, propagate.Unchanged, r.action("cluster3", "Deployment", ns, "web"))
	assert.Contains(t, r.errOut, "✗ cluster cluster1: 2 unchanged, 1 failed\n    failed ConfigMap conflict/cfg: Apply failed with 1 conflict: conflict with \"kubectl-edit\" using v1: .data.k; use --force-conflicts to take these fields over\n")
	assert.Equal(t, "edited", mustGet(t, "cluster1", cmGVR, ns, "cfg").Object["data"].(map[string]any)["k"])

	r = runApply(t, fed, "-f", dir, "--force-conflicts")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster1", "ConfigMap", ns, "cfg"))
	assert.Equal(t, propagate.Configured, r.action("cluster2", "Deployment", ns, "web"))
	assert.Equal(t, "v1", mustGet(t, "cluster1", cmGVR, ns, "cfg").Object["data"].(map[string]any)["k"])
	containers, _, _ := unstructured.NestedSlice(mustGet(t, "cluster2", deployGVR, ns, "web").Object, "spec", "template", "spec", "containers")
	assert.Equal(t, "nginx:1.27", containers[0].(map[string]any)["image"])

	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "writes to %s", c)
	}
}

func createWidgetCRD(t *testing.T, cluster string) {
	t.Helper()
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"kind": "Widget", "plural": "widgets", "singular": "widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}
	_, err := client(t, cluster).Resource(crdGVR).Create(context.Background(), &unstructured.Unstructured{Object: crd}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := client(t, cluster).Resource(widgetGVR).Namespace("default").List(context.Background(), metav1.ListOptions{})
		return err == nil
	}, 20*time.Second, 200*time.Millisecond)
	// The API server serves a new CRD before its discovery documents list
	// it (they are rebuilt asynchronously), and fedctl maps types through
	// discovery: wait for that too, or apply races it.
	cfg, err := testenv.Require(t, env).RESTConfig(cluster)
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		list, err := dc.ServerResourcesForGroupVersion("example.com/v1")
		return err == nil && slices.ContainsFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == "widgets" })
	}, 20*time.Second, 100*time.Millisecond, "discovery of %s lists widgets.example.com", cluster)
}

// TestApplyTypeMissingInOneMember: kubefed#1241. The member without the CRD
// fails alone, before anything is written to it; the others converge.
func TestApplyTypeMissingInOneMember(t *testing.T) {
	createWidgetCRD(t, "cluster1")
	createWidgetCRD(t, "cluster2")
	fed := federationOf(widgetType)
	dir := t.TempDir()
	const ns = "crd"
	write(t, dir, namespaceDoc(ns)+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedWidget
metadata:
  name: w
  namespace: crd
spec:
  template:
    spec: {size: 3}
  placement:
    clusterSelector: {}
`)
	r := runApply(t, fed, "-f", dir)
	assertPartial(t, r.err, "cluster3")
	assert.Contains(t, r.errOut, "✗ cluster cluster3: FederatedWidget crd/w: type example.com/v1 Widget is not served by this cluster; install its CRD there first\n")
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Equal(t, propagate.Created, r.action(c, "Widget", ns, "w"))
		mustGet(t, c, widgetGVR, ns, "w")
	}
	_, err := get(t, "cluster3", nsGVR, "", ns)
	assert.True(t, apierrors.IsNotFound(err), "nothing written to cluster3: %v", err)
	assert.Zero(t, r.requests.writes("cluster3"))
}

// TestApplyMemberDown: one API server is down; the others converge and the
// exit code is 3 (kubefed#1254); once it is back, a re-run writes to it
// alone.
func TestApplyMemberDown(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns = "down"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	require.NoError(t, e.StopCluster("cluster3"))
	started := false
	defer func() {
		if !started {
			require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
		}
	}()
	r := runApply(t, fed, "-f", dir, "--timeout", "10s")
	assertPartial(t, r.err, "cluster3")
	assert.Contains(t, r.errOut, "✗ cluster cluster3: ")
	assert.Contains(t, r.errOut, "refused the connection")
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Equal(t, propagate.Created, r.action(c, "ConfigMap", ns, "cfg"))
	}

	require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
	started = true
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Zero(t, r.requests.writes("cluster1"))
	assert.Zero(t, r.requests.writes("cluster2"))
	assert.Equal(t, 2, r.requests.writes("cluster3"))
	assert.Equal(t, propagate.Created, r.action("cluster3", "ConfigMap", ns, "cfg"))
}

// TestApplyServerDryRun: --dry-run=server reports what would happen,
// removals included, and changes nothing.
func TestApplyServerDryRun(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "dry"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+configMapDoc(ns, "gone", "v1", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", dir).err)

	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v2", allClusters, "")+configMapDoc(ns, "gone", "v1", "    clusters: []", "")+
		configMapDoc(ns, "new", "v1", allClusters, ""))
	r := runApply(t, fed, "-f", dir, "--dry-run=server")
	require.NoError(t, r.err)
	assert.Equal(t, "server", r.report.DryRun)
	assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Configured)
	assertAll(t, r, "ConfigMap", ns, "new", propagate.Created)
	assertAll(t, r, "ConfigMap", ns, "gone", propagate.Deleted)
	for _, c := range clusterNames {
		assert.Equal(t, "v1", mustGet(t, c, cmGVR, ns, "cfg").Object["data"].(map[string]any)["k"])
		mustGet(t, c, cmGVR, ns, "gone")
		_, err := get(t, c, cmGVR, ns, "new")
		assert.True(t, apierrors.IsNotFound(err))
	}
	assert.Contains(t, r.errOut, "(server dry run: nothing changed)")
}

// TestApplyClientDryRun: --dry-run=client sends no request at all.
func TestApplyClientDryRun(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	write(t, dir, namespaceDoc("client")+configMapDoc("client", "cfg", "v1", allClusters, ""))
	r := runApply(t, fed, "-f", dir, "--dry-run=client")
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", "client", "cfg", propagate.Planned)
	assert.Empty(t, r.requests.counts)
}

// TestApplyExistingObjects: an object fedctl did not create is reported
// AlreadyExists and left as it is, unless --adopt; one labelled
// kubefed.io/managed: "false" is never touched.
func TestApplyExistingObjects(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "adopt"
	write(t, dir, namespaceDoc(ns))
	require.NoError(t, runApply(t, fed, "-f", dir).err)
	createObject(t, "cluster1", cmGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "pre", "namespace": ns}, "data": map[string]any{"k": "old"}}, "someone")
	createObject(t, "cluster2", cmGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "pre", "namespace": ns, "labels": map[string]any{federation.ManagedLabel: "false"}}, "data": map[string]any{"k": "old"}}, "someone")
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "pre", "new", allClusters, ""))

	r := runApply(t, fed, "-f", dir)
	assertPartial(t, r.err, "cluster1")
	o := r.object("cluster1", "ConfigMap", ns, "pre")
	assert.Equal(t, propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: "pre", FederatedObject: "FederatedConfigMap/adopt/pre",
		Action: propagate.Failed, Reason: propagate.ReasonAlreadyExists,
		Error: "already exists and was not created by fedctl; use --adopt to take it over"}, o)
	assert.Equal(t, propagate.Skipped, r.action("cluster2", "ConfigMap", ns, "pre"))
	assert.Equal(t, propagate.Created, r.action("cluster3", "ConfigMap", ns, "pre"))
	for _, c := range []string{"cluster1", "cluster2"} {
		cm := mustGet(t, c, cmGVR, ns, "pre")
		assert.Equal(t, "old", cm.Object["data"].(map[string]any)["k"])
		assert.NotContains(t, cm.GetLabels(), federation.ManagedByLabel)
	}

	r = runApply(t, fed, "-f", dir, "--adopt")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster1", "ConfigMap", ns, "pre"))
	assert.Equal(t, propagate.Skipped, r.action("cluster2", "ConfigMap", ns, "pre"))
	cm := mustGet(t, "cluster1", cmGVR, ns, "pre")
	assert.Equal(t, "new", cm.Object["data"].(map[string]any)["k"])
	assert.Equal(t, "fedctl", cm.GetLabels()[federation.ManagedByLabel])
	assert.Equal(t, "old", mustGet(t, "cluster2", cmGVR, ns, "pre").Object["data"].(map[string]any)["k"])
}

// TestApplyNoOpAtScale: a no-op re-apply of 300 federated Deployments to
// three members sends no write and one LIST per type to each member.
func TestApplyNoOpAtScale(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns, n = "scale", 300
	var b strings.Builder
	b.WriteString(namespaceDoc(ns))
	for i := range n {
		b.WriteString(deploymentDoc(ns, fmt.Sprintf("web-%03d", i), "nginx:1.27", 1, "", allClusters, ""))
	}
	write(t, dir, b.String())
	start := time.Now()
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	cold := time.Since(start)
	for _, c := range clusterNames {
		t.Logf("cold apply of %d Deployments, %s: %d writes, %d requests", n, c, r.requests.writes(c), r.requests.total(c))
	}

	start = time.Now()
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	noop := time.Since(start)
	for _, c := range clusterNames {
		assert.Equal(t, n+1, r.report.Clusters[slicesIndex(clusterNames, c)].Count(propagate.Unchanged))
		assert.Zero(t, r.requests.writes(c))
		assert.Equal(t, 2, r.requests.lists[c], "one LIST for Namespaces, one for Deployments")
		t.Logf("no-op re-apply of %d Deployments, %s: %d requests %v", n, c, r.requests.total(c), r.requests.counts[c])
	}
	t.Logf("3 members: cold apply %s, no-op re-apply %s", cold.Round(time.Millisecond), noop.Round(time.Millisecond))
}

func slicesIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
