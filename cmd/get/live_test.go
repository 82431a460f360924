package get

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apiextv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/inventory"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

var clusterNames = []string{"cluster1", "cluster2", "cluster3"}

func testFederation() *members.Federation {
	fed := members.New()
	for _, c := range clusterNames {
		_ = fed.Put(members.Member{Name: c}, false)
	}
	return fed
}

type getRun struct {
	out, errOut string
	err         error
}

func runGet(t *testing.T, args ...string) getRun {
	t.Helper()
	return runGetVia(t, testFederation(), testenv.Require(t, env).Kubeconfig, args...)
}

// runGetVia is runGet with members fed, whose contexts are in kubeconfig.
func runGetVia(t *testing.T, fed *members.Federation, kubeconfig string, args ...string) getRun {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: kubeconfig}, nil },
	}
	cmd := NewCmdGet(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	r := getRun{out: out.String(), errOut: errOut.String(), err: err}
	t.Logf("fedctl get %s\nstdout:\n%sstderr:\n%s", strings.Join(args, " "), r.out, r.errOut)
	return r
}

// apply propagates manifests as fedctl apply does.
func apply(t *testing.T, manifests string) {
	t.Helper()
	e := testenv.Require(t, env)
	path := filepath.Join(t.TempDir(), "app.yaml")
	require.NoError(t, os.WriteFile(path, []byte(manifests), 0o600))
	fed := testFederation()
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, path), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	access := members.Access{Kubeconfig: e.Kubeconfig}
	report := propagate.Run(context.Background(), propagate.Input{Result: out.Result, Clusters: fed.Names(),
		Clients: func(name string) (members.Client, error) {
			m, _ := fed.Member(name)
			cfg, err := access.RESTConfig(m)
			if err != nil {
				return nil, err
			}
			return members.NewClient(cfg)
		}})
	require.Empty(t, report.Failed(), "%+v", report.Clusters)
}

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
    data: {a: "1", b: "2"}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: cluster2
    clusterOverrides: [{op: add, path: /data/c, value: "3"}]
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata: {name: creds, namespace: shop}
spec:
  template:
    stringData: {password: hunter2-very-secret}
  placement:
    clusters: [{name: cluster1}]
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
          containers: [{name: web, image: nginx:1.27}]
  placement:
    clusters: [{name: cluster1}, {name: cluster3}]
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedClusterRole
metadata: {name: reader}
spec:
  template:
    rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
  placement: {clusterSelector: {}}
`

// ageRE matches the AGE column kubectl's printers fill in: "5s", "2m3s".
var ageRE = regexp.MustCompile(`\b(\d+[smhd])+$`)

// normalizeAges replaces the ages at the end of each line.
func normalizeAges(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = ageRE.ReplaceAllString(l, "AGE")
	}
	return strings.Join(lines, "\n")
}

// TestGetTypeLive lists what fedctl manages across three members with the
// API servers' own columns, and leaves out what it does not manage.
func TestGetTypeLive(t *testing.T) {
	e := testenv.Require(t, env)
	apply(t, manifests)
	// An object fedctl did not create is never listed.
	cfg, err := e.RESTConfig("cluster1")
	require.NoError(t, err)
	dc, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	foreign := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "foreign", "namespace": "shop"}}}
	_, err = dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Namespace("shop").Create(context.Background(), foreign, metav1.CreateOptions{})
	require.NoError(t, err)

	r := runGet(t, "deployments", "-A")
	require.NoError(t, r.err)
	testutil.AssertGolden(t, []byte(normalizeAges(r.out)), "testdata/deployments.golden")

	r = runGet(t, "cm", "-n", "shop")
	require.NoError(t, r.err)
	testutil.AssertGolden(t, []byte(normalizeAges(r.out)), "testdata/configmaps.golden")
	assert.NotContains(t, r.out, "foreign")

	r = runGet(t, "clusterroles.rbac.authorization.k8s.io", "-o", "name")
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1 clusterrole.rbac.authorization.k8s.io/reader\ncluster2 clusterrole.rbac.authorization.k8s.io/reader\ncluster3 clusterrole.rbac.authorization.k8s.io/reader\n", r.out)

	r = runGet(t, "configmap", "settings", "-n", "shop", "--cluster", "cluster3", "--cluster", "cluster2")
	require.NoError(t, r.err)
	assert.Regexp(t, `^CLUSTER\s+NAME\s+DATA\s+AGE\ncluster2\s+settings\s+3\s+\S+\ncluster3\s+settings\s+2\s+\S+\n$`, r.out)

	r = runGet(t, "deploy", "-A", "-o", "wide")
	require.NoError(t, r.err)
	assert.Regexp(t, `CLUSTER\s+NAMESPACE\s+NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR\n`, r.out)
	assert.Regexp(t, `cluster3\s+shop\s+web\s+0/2\s+0\s+0\s+\S+\s+web\s+nginx:1.27\s+app=web\n`, r.out)

	r = runGet(t, "configmaps", "-n", "elsewhere")
	require.NoError(t, r.err)
	assert.Empty(t, r.out)
	assert.Equal(t, "No configmaps managed by fedctl found in namespace elsewhere of the member clusters.\n", r.errOut)

	// a name found nowhere is an error, as in kubectl get TYPE NAME
	for _, format := range []string{"", "json"} {
		r = runGet(t, "configmap", "nothing", "-n", "shop", "-o", format)
		require.Error(t, r.err, format)
		assert.Equal(t, 1, cmdutil.ExitCodeOf(r.err))
		assert.Equal(t, `no member cluster holds configmaps "nothing" in namespace shop managed by fedctl`, r.err.Error())
		assert.Empty(t, r.out)
	}

	// kubectl's NAME.GROUP forms, what -o name prints among them
	r = runGet(t, "deployment.apps", "web", "-n", "shop", "-o", "name", "--cluster", "cluster1")
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1 deployment.apps/web\n", r.out)
	r = runGet(t, "deployments.v1.apps", "-n", "shop", "-o", "name", "--cluster", "cluster1")
	require.NoError(t, r.err)
	assert.Equal(t, "cluster1 deployment.apps/web\n", r.out)

	// without -n, the contexts' namespace, and the message names it
	r = runGet(t, "configmaps")
	require.NoError(t, r.err)
	assert.Equal(t, "No configmaps managed by fedctl found in namespace default of the member clusters.\n", r.errOut)

	// a federation scoped to shop is read there, whatever -A says; another
	// -n is refused
	scoped := testFederation()
	scoped.Namespace = "shop"
	r = runGetVia(t, scoped, testenv.Require(t, env).Kubeconfig, "cm", "-A", "-o", "name", "--cluster", "cluster2")
	require.NoError(t, r.err)
	assert.Equal(t, "cluster2 configmap/settings\n", r.out)
	r = runGetVia(t, scoped, testenv.Require(t, env).Kubeconfig, "cm", "-o", "name", "--cluster", "cluster2")
	require.NoError(t, r.err)
	assert.Equal(t, "cluster2 configmap/settings\n", r.out)
	r = runGetVia(t, scoped, testenv.Require(t, env).Kubeconfig, "cm", "-n", "elsewhere")
	require.Error(t, r.err)
	assert.Equal(t, 2, cmdutil.ExitCodeOf(r.err))
	assert.Contains(t, r.err.Error(), "-n elsewhere: the federation is scoped to namespace shop")

	// completion offers what get would list: the scoped namespace's
	// objects, whatever -A says
	complete := func(fed *members.Federation) []string {
		f := &cmdutil.Factory{
			Federation: func() (*members.File, error) { return &members.File{Federation: fed}, nil },
			Access: func() (members.Access, error) {
				return members.Access{Kubeconfig: testenv.Require(t, env).Kubeconfig}, nil
			},
		}
		cmd := NewCmdGet(f, nil)
		require.NoError(t, cmd.ParseFlags([]string{"-A", "--cluster", "cluster2"}))
		names, _ := cmd.ValidArgsFunction(cmd, []string{"cm"}, "")
		return names
	}
	assert.Contains(t, complete(scoped), "settings")
	elsewhere := testFederation()
	elsewhere.Namespace = "elsewhere"
	assert.Empty(t, complete(elsewhere), "shop's settings are not offered in a federation scoped to another namespace")

	r = runGet(t, "gadgets")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), `cluster cluster1: no API resource named "gadgets"; "kubectl --context cluster1 api-resources" lists the names the cluster serves`)
}

// TestGetSecretsAreRedacted: -o yaml|json never print Secret data.
func TestGetSecretsAreRedacted(t *testing.T) {
	testenv.Require(t, env)
	apply(t, manifests)
	for _, format := range []string{"yaml", "json"} {
		r := runGet(t, "secrets", "-n", "shop", "-o", format)
		require.NoError(t, r.err)
		assert.NotContains(t, r.out, "hunter2")
		assert.NotContains(t, r.out, base64.StdEncoding.EncodeToString([]byte("hunter2-very-secret")))
		assert.Contains(t, r.out, "REDACTED")
	}
	r := runGet(t, "secrets", "-n", "shop", "-o", "json")
	var list inventory.MemberObjectList
	require.NoError(t, json.Unmarshal([]byte(r.out), &list))
	require.Len(t, list.Items, 1)
	assert.Equal(t, "cluster1", list.Items[0].Cluster)
	assert.Equal(t, map[string]any{"password": "REDACTED"}, list.Items[0].Object["data"])
	meta := list.Items[0].Object["metadata"].(map[string]any)
	assert.Equal(t, "REDACTED", meta["annotations"].(map[string]any)[federation.HashAnnotation], "a hash of the data is no better")
	assert.NotContains(t, meta, "managedFields", "left out, as kubectl get leaves them out")

	r = runGet(t, "secrets", "-n", "shop", "-o", "yaml", "--show-managed-fields")
	require.NoError(t, r.err)
	assert.Contains(t, r.out, "managedFields:")
	assert.Contains(t, r.out, "manager: fedctl")
	assert.NotContains(t, r.out, "hunter2", "managedFields name the fields, never their values")
}

// TestGetMemberDown: a member that does not answer is reported on stderr,
// the others are shown, and the exit code is 3.
func TestGetMemberDown(t *testing.T) {
	e := testenv.Require(t, env)
	apply(t, manifests)
	require.NoError(t, e.StopCluster("cluster2"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, e.StartCluster(ctx, "cluster2"))
	})
	r := runGet(t, "configmaps", "-A")
	var partial *cmdutil.PartialError
	require.ErrorAs(t, r.err, &partial)
	assert.Equal(t, []string{"cluster2"}, partial.Failed)
	assert.Regexp(t, `error: cluster cluster2: API server \S+ \(context "cluster2"\) refused the connection; is the cluster running\?`, r.errOut)
	assert.Regexp(t, `cluster1\s+shop\s+settings\s+2\s`, r.out)
	assert.Regexp(t, `cluster3\s+shop\s+settings\s+2\s`, r.out)
	assert.NotContains(t, r.out, "cluster2")

	// The type is resolved through the next member when the first is down.
	require.NoError(t, e.StopCluster("cluster1"))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		require.NoError(t, e.StartCluster(ctx, "cluster1"))
	})
	r = runGet(t, "cm", "-n", "shop")
	require.ErrorAs(t, r.err, &partial)
	assert.Equal(t, []string{"cluster1", "cluster2"}, partial.Failed)
	assert.Regexp(t, `^CLUSTER\s+NAME\s+DATA\s+AGE\ncluster3\s+settings\s+2\s+\S+\n$`, r.out)

	// found in none of the members listed: the others may hold it (exit 3)
	r = runGet(t, "cm", "nothing", "-n", "shop")
	assert.Equal(t, cmdutil.ExitPartial, cmdutil.ExitCodeOf(r.err))
	assert.EqualError(t, r.err, `none of the 1 member cluster(s) listed holds configmaps "nothing" in namespace shop managed by fedctl; cluster1, cluster2 could not be listed and may`)
}

// TestGetMemberHangs: a member that completes TLS and never answers costs
// --timeout, and the others are shown meanwhile (exit 3).
func TestGetMemberHangs(t *testing.T) {
	e := testenv.Require(t, env)
	apply(t, manifests)
	p, err := e.StartFaultProxy("cluster2")
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, p.Close()) })
	p.Set(testenv.Faults{Hang: true})
	kubeconfig := e.KubeconfigVia(t, "cluster2-proxied", "cluster2", p.Server)
	fed := testFederation()
	require.NoError(t, fed.Put(members.Member{Name: "cluster2", Context: "cluster2-proxied"}, true))

	start := time.Now()
	r := runGetVia(t, fed, kubeconfig, "configmaps", "-n", "shop", "--timeout", "3s")
	took := time.Since(start)
	t.Logf("get with cluster2 silent: %s", took.Round(10*time.Millisecond))
	var partial *cmdutil.PartialError
	require.ErrorAs(t, r.err, &partial)
	assert.Equal(t, []string{"cluster2"}, partial.Failed)
	assert.Less(t, took, 15*time.Second, "bounded by --timeout 3s")
	assert.Regexp(t, `cluster1\s+settings\s+2\s`, r.out)
	assert.Regexp(t, `cluster3\s+settings\s+2\s`, r.out)
}

// TestGetTypeCRDOnSomeMembers: a custom type is listed in each member at
// the version that member serves, and a member without its CRD holds none
// of its objects: a note, not a failure.
func TestGetTypeCRDOnSomeMembers(t *testing.T) {
	e := testenv.Require(t, env)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for cluster, version := range map[string]string{"cluster1": "v1", "cluster2": "v1beta1"} {
		cfg, err := e.RESTConfig(cluster)
		require.NoError(t, err)
		createGizmoCRD(ctx, t, cfg, version)
		dc, err := dynamic.NewForConfig(cfg)
		require.NoError(t, err)
		gizmo := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gizmo.example.com/" + version, "kind": "Gizmo",
			"metadata": map[string]any{"name": "g-" + cluster, "namespace": "default",
				"labels": map[string]any{federation.ManagedByLabel: federation.ManagedByValue}}}}
		_, err = dc.Resource(schema.GroupVersionResource{Group: "gizmo.example.com", Version: version, Resource: "gizmos"}).
			Namespace("default").Create(ctx, gizmo, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	r := runGet(t, "gizmos")
	require.NoError(t, r.err, "cluster3 has no CRD for gizmos: it holds none, it has not failed")
	assert.Regexp(t, `^CLUSTER\s+NAME\s+AGE\ncluster1\s+g-cluster1\s+\S+\ncluster2\s+g-cluster2\s+\S+\n$`, r.out)
	assert.Contains(t, r.errOut, "note: gizmos.gizmo.example.com not served by cluster3\n")

	r = runGet(t, "gizmo.gizmo.example.com", "-o", "json")
	require.NoError(t, r.err)
	var list inventory.MemberObjectList
	require.NoError(t, json.Unmarshal([]byte(r.out), &list))
	require.Len(t, list.Items, 2)
	assert.Equal(t, "gizmo.example.com/v1", list.Items[0].Object["apiVersion"])
	assert.Equal(t, "gizmo.example.com/v1beta1", list.Items[1].Object["apiVersion"], "cluster2 is read at the version it serves")

	r = runGet(t, "gizmos", "g-cluster1", "--cluster", "cluster2", "--cluster", "cluster3")
	require.Error(t, r.err)
	assert.Equal(t, 1, cmdutil.ExitCodeOf(r.err))
	assert.Equal(t, `no member cluster holds gizmos.gizmo.example.com "g-cluster1" in namespace default managed by fedctl`, r.err.Error())

	r = runGet(t, "gizmos", "--cluster", "cluster3")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), `cluster cluster3: no API resource named "gizmos"`)
}

// createGizmoCRD creates the namespaced CRD gizmos.gizmo.example.com served
// at version alone, and waits until discovery lists it.
func createGizmoCRD(ctx context.Context, t *testing.T, cfg *rest.Config, version string) {
	t.Helper()
	client, err := apiextclient.NewForConfig(cfg)
	require.NoError(t, err)
	preserve := true
	crd := &apiextv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos.gizmo.example.com"},
		Spec: apiextv1.CustomResourceDefinitionSpec{
			Group: "gizmo.example.com",
			Names: apiextv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Scope: apiextv1.NamespaceScoped,
			Versions: []apiextv1.CustomResourceDefinitionVersion{{Name: version, Served: true, Storage: true,
				Schema: &apiextv1.CustomResourceValidation{OpenAPIV3Schema: &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
	_, err = client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)
	disco, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	for {
		lists, _ := disco.ServerPreferredResources()
		if _, err := typeconfig.ResolveKubectl("gizmos.gizmo.example.com", lists); err == nil {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD gizmos.gizmo.example.com never served at %s", version)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
