package capi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/cmd"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// management is the test cluster that plays Cluster API's management
// cluster; mgmt is its context in the kubeconfig fedctl is given.
const (
	management = "cluster1"
	mgmt       = "mgmt"
)

var (
	clustersGVR   = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "clusters"}
	crdsGVR       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

var (
	installOnce sync.Once
	installErr  error
)

// installCRD installs Cluster API's Cluster CRD in the management cluster,
// once for the package, and waits until Clusters can be listed.
func installCRD(t *testing.T) {
	t.Helper()
	installOnce.Do(func() {
		installErr = applyCRD(env.Dynamic(t, management), "../../testdata/crds/cluster.x-k8s.io_clusters.yaml", clustersGVR)
	})
	require.NoError(t, installErr, "install Cluster API's Cluster CRD")
}

// applyCRD applies the CRD in file through client and waits until gvr
// can be listed.
func applyCRD(client dynamic.Interface, file string, gvr schema.GroupVersionResource) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return err
	}
	u := &unstructured.Unstructured{Object: obj}
	if _, err := client.Resource(crdsGVR).Apply(context.Background(), u.GetName(), u, metav1.ApplyOptions{FieldManager: "test", Force: true}); err != nil {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err = client.Resource(gvr).List(context.Background(), metav1.ListOptions{})
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// result is what one run of fedctl did.
type result struct {
	out, errOut string
	code        int
}

// workspace is one test's federation file, its kubeconfig (the management
// context, and no-capi, a cluster without Cluster API: the members are
// reached through Secrets or not at all),
// its namespace in the management cluster, and what must never show:
// every credential written into a Secret, and the kubeconfigs themselves.
type workspace struct {
	dir, fedPath, kubeconfig string
	ns                       string
	mgmt                     kubernetes.Interface

	mu      sync.Mutex
	secrets []string // credentials and kubeconfig texts
	outputs []string // every stdout and stderr of fedctl
}

// newWorkspace points fedctl at a new federation file and a kubeconfig
// whose context mgmt reaches the management cluster in namespace ns, which
// it creates there.
func newWorkspace(t *testing.T, ns string) *workspace {
	t.Helper()
	e := testenv.Require(t, env)
	installCRD(t)
	w := &workspace{dir: t.TempDir(), ns: ns}
	w.fedPath = filepath.Join(w.dir, "federation.yaml")
	w.kubeconfig = filepath.Join(w.dir, "kubeconfig")

	mc := e.Cluster(management)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[mgmt] = &clientcmdapi.Cluster{Server: mc.Server, CertificateAuthorityData: e.CAData()}
	cfg.AuthInfos[mgmt] = &clientcmdapi.AuthInfo{Token: mc.Token}
	cfg.Contexts[mgmt] = &clientcmdapi.Context{Cluster: mgmt, AuthInfo: mgmt, Namespace: ns}
	// no-capi reaches cluster3, which has no Cluster API
	nc := e.Cluster("cluster3")
	cfg.Clusters["no-capi"] = &clientcmdapi.Cluster{Server: nc.Server, CertificateAuthorityData: e.CAData()}
	cfg.AuthInfos["no-capi"] = &clientcmdapi.AuthInfo{Token: nc.Token}
	cfg.Contexts["no-capi"] = &clientcmdapi.Context{Cluster: "no-capi", AuthInfo: "no-capi"}
	cfg.CurrentContext = mgmt
	require.NoError(t, clientcmd.WriteToFile(*cfg, w.kubeconfig))
	w.secrets = append(w.secrets, mc.Token, nc.Token)

	t.Setenv("KUBECONFIG", w.kubeconfig)
	t.Setenv("FEDCTL_CONFIG", w.fedPath)
	t.Setenv("NO_COLOR", "1")

	rc, err := e.RESTConfig(management)
	require.NoError(t, err)
	w.mgmt, err = kubernetes.NewForConfig(rc)
	require.NoError(t, err)
	_, err = w.mgmt.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)
	// Registered first, so it runs after every other cleanup of the test.
	t.Cleanup(func() { w.assertNoCredentials(t) })
	return w
}

// run runs fedctl once, in process, as its own run (cmd.Execute makes a
// new Factory, and with it a new cache of Secrets).
func (w *workspace) run(t *testing.T, args ...string) result {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	code := cmd.Execute(context.Background(), ios, "fedctl", args)
	r := result{out: out.String(), errOut: errOut.String(), code: code}
	w.mu.Lock()
	w.outputs = append(w.outputs, r.out, r.errOut)
	w.mu.Unlock()
	t.Logf("fedctl %s\nexit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.out, r.errOut)
	return r
}

// assertNoCredentials: no credential of a Secret, nor a kubeconfig's
// text, in any output of fedctl or in the federation file, whether raw,
// base64 (as a kubeconfig's *-data fields and a Secret's data hold them)
// or a line of a PEM block.
func (w *workspace) assertNoCredentials(t *testing.T) {
	fed, _ := os.ReadFile(w.fedPath)
	w.mu.Lock()
	defer w.mu.Unlock()
	texts := append(w.outputs, string(fed))
	require.NotEmpty(t, w.outputs, "the test ran fedctl")
	for _, secret := range w.secrets {
		for i, text := range texts {
			if strings.Contains(text, secret) {
				t.Errorf("output %d of %d holds a credential (%d bytes of it): %.200q", i, len(texts), len(secret), text)
			}
		}
	}
}

// sensitive records a credential, and how else it shows: base64, and each
// line of a PEM block.
func (w *workspace) sensitive(values ...[]byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, v := range values {
		w.secrets = append(w.secrets, string(v), base64.StdEncoding.EncodeToString(v))
		for l := range strings.Lines(string(v)) {
			if l = strings.TrimSpace(l); len(l) >= 32 && !strings.HasPrefix(l, "-----") {
				w.secrets = append(w.secrets, l)
			}
		}
	}
}

// putKubeconfigSecret writes the Secret <cluster>-kubeconfig as Cluster API
// does: type cluster.x-k8s.io/secret, its cluster-name label, and in data
// key "value" a kubeconfig whose current context <cluster>-admin@<cluster>
// reaches target with a new client certificate (CN <cluster>-admin, group
// system:masters). An existing Secret is replaced: a rotation.
func (w *workspace) putKubeconfigSecret(t *testing.T, cluster, target string) {
	t.Helper()
	certPEM, keyPEM, err := env.ClientCertificate(cluster+"-admin", "system:masters")
	require.NoError(t, err)
	w.putSecret(t, cluster, target, &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM})
	w.sensitive(certPEM, keyPEM)
}

// putTokenSecret is putKubeconfigSecret with a bearer token, which the
// target may or may not accept.
func (w *workspace) putTokenSecret(t *testing.T, cluster, target, token string) {
	t.Helper()
	w.putSecret(t, cluster, target, &clientcmdapi.AuthInfo{Token: token})
	w.sensitive([]byte(token))
}

func (w *workspace) putSecret(t *testing.T, cluster, target string, user *clientcmdapi.AuthInfo) {
	t.Helper()
	w.putSecretIn(t, w.mgmt, w.ns, cluster, target, user)
}

// putSecretIn writes cluster's kubeconfig Secret, reaching target as user,
// in namespace ns of the management cluster mgmt.
func (w *workspace) putSecretIn(t *testing.T, mgmt kubernetes.Interface, ns, cluster, target string, user *clientcmdapi.AuthInfo) {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[cluster] = &clientcmdapi.Cluster{Server: env.Cluster(target).Server, CertificateAuthorityData: env.CAData()}
	cfg.AuthInfos[cluster+"-admin"] = user
	ctxName := cluster + "-admin@" + cluster
	cfg.Contexts[ctxName] = &clientcmdapi.Context{Cluster: cluster, AuthInfo: cluster + "-admin"}
	cfg.CurrentContext = ctxName
	data, err := clientcmd.Write(*cfg)
	require.NoError(t, err)
	w.sensitive(data)

	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: cluster + "-kubeconfig", Namespace: ns, Labels: map[string]string{"cluster.x-k8s.io/cluster-name": cluster}},
		Type:       "cluster.x-k8s.io/secret",
		Data:       map[string][]byte{"value": data},
	}
	secrets := mgmt.CoreV1().Secrets(ns)
	_, err = secrets.Create(context.Background(), secret, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		_, err = secrets.Update(context.Background(), secret, metav1.UpdateOptions{})
	}
	require.NoError(t, err)
}

func (w *workspace) deleteSecret(t *testing.T, cluster string) {
	t.Helper()
	require.NoError(t, w.mgmt.CoreV1().Secrets(w.ns).Delete(context.Background(), cluster+"-kubeconfig", metav1.DeleteOptions{}))
}

// condition is a v1beta1 Cluster API condition.
func condition(typ string, ready bool) map[string]any {
	c := map[string]any{"type": typ, "status": "True", "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	if !ready {
		c["status"], c["severity"], c["reason"] = "False", "Warning", "WaitingForControlPlane"
	}
	return c
}

// createCluster creates a v1beta1 Cluster and writes its status through
// the status subresource, as Cluster API's controllers do: phase, the
// Ready, ControlPlaneReady and InfrastructureReady conditions, and the
// matching booleans. finalizer keeps it, once deleted, in Deleting.
func (w *workspace) createCluster(t *testing.T, name string, labels map[string]string, phase string, ready, finalizer bool) {
	t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta1",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": name, "namespace": w.ns},
		"spec": map[string]any{
			"clusterNetwork": map[string]any{"pods": map[string]any{"cidrBlocks": []any{"192.168.0.0/16"}}},
		},
	}}
	obj.SetLabels(labels)
	if finalizer {
		obj.SetFinalizers([]string{"cluster.cluster.x-k8s.io"})
	}
	clusters := env.Dynamic(t, management).Resource(clustersGVR).Namespace(w.ns)
	created, err := clusters.Create(context.Background(), obj, metav1.CreateOptions{})
	require.NoError(t, err)
	created.Object["status"] = map[string]any{
		"phase":               phase,
		"controlPlaneReady":   ready,
		"infrastructureReady": ready,
		"observedGeneration":  int64(1),
		"conditions":          []any{condition("Ready", ready), condition("ControlPlaneReady", ready), condition("InfrastructureReady", ready)},
	}
	_, err = clusters.UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	require.NoError(t, err)
	if finalizer {
		t.Cleanup(func() {
			patch := []byte(`{"metadata":{"finalizers":null}}`)
			_, _ = clusters.Patch(context.Background(), name, "application/merge-patch+json", patch, metav1.PatchOptions{})
		})
	}
}

func (w *workspace) deleteCluster(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, env.Dynamic(t, management).Resource(clustersGVR).Namespace(w.ns).Delete(context.Background(), name, metav1.DeleteOptions{}))
}

// writeApp writes a FederatedNamespace ns and a FederatedConfigMap
// settings in it with data k=value, for every member, and returns the
// file's path.
func (w *workspace) writeApp(t *testing.T, ns, value string) string {
	t.Helper()
	path := filepath.Join(w.dir, "app.yaml")
	require.NoError(t, os.WriteFile(path, fmt.Appendf(nil, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %[1]s, namespace: %[1]s}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: settings, namespace: %[1]s}
spec:
  template: {data: {k: %[2]s}}
  placement: {clusterSelector: {}}
`, ns, value), 0o600))
	return path
}

// configMapValue is data.k of ConfigMap settings in ns of a test cluster,
// "" when there is none.
func configMapValue(t *testing.T, cluster, ns string) string {
	t.Helper()
	cm, err := env.Dynamic(t, cluster).Resource(configMapsGVR).Namespace(ns).Get(context.Background(), "settings", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ""
	}
	require.NoError(t, err)
	v, _, _ := unstructured.NestedString(cm.Object, "data", "k")
	return v
}

func (w *workspace) federationFile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(w.fedPath)
	require.NoError(t, err)
	return string(data)
}

// requests counts fedctl's own request-log lines (-v 6) of who ("[mgmt
// (management)]" or a member's name) whose URL contains path.
func requests(errOut, who, path string) int {
	n := 0
	for l := range strings.Lines(errOut) {
		if strings.HasPrefix(l, "["+who+"] ") && strings.Contains(l, path) {
			n++
		}
	}
	return n
}

// TestJoinFromClusterAPI: join records a Cluster API reference and no
// credentials; the member is then reached through its Secret for get
// clusters and apply, which read the Secret once per run.
func TestJoinFromClusterAPI(t *testing.T) {
	w := newWorkspace(t, "capi-one")
	w.createCluster(t, "web-1", map[string]string{"env": "prod", "tier": "web"}, "Provisioned", true, false)
	w.putKubeconfigSecret(t, "web-1", "cluster2")
	v := testenv.KubernetesVersion
	// The check of every output can fail: what it looks for is what a
	// leak of the Secret (kubectl get secret -o json) would show.
	secret, err := w.mgmt.CoreV1().Secrets(w.ns).Get(context.Background(), "web-1-kubeconfig", metav1.GetOptions{})
	require.NoError(t, err)
	leaked, err := json.Marshal(secret)
	require.NoError(t, err)
	assert.True(t, slices.ContainsFunc(w.secrets, func(s string) bool { return strings.Contains(string(leaked), s) }))

	r := w.run(t, "join", "web-1", "--from-capi", "web-1", "--management-context", mgmt, "-n", "capi-one", "--label", "team=a")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, "✓ cluster/web-1 joined (Cluster API cluster capi-one/web-1 in management cluster mgmt, Kubernetes "+v+")\n", r.errOut)
	assert.Equal(t, `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
  - name: web-1
    capi:
      managementContext: mgmt
      namespace: capi-one
      cluster: web-1
    labels:
      team: a
types: []
`, w.federationFile(t), "the federation file holds the reference only")
	st, err := os.Stat(w.fedPath)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	// A bare --from-capi joins NAME's Cluster, in the management context's
	// namespace; --copy-labels copies the Cluster's labels, --label wins.
	r = w.run(t, "join", "web-1", "--from-capi", "--management-context", mgmt, "--copy-labels", "--label", "tier=api", "--overwrite")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Contains(t, w.federationFile(t), `    capi:
      managementContext: mgmt
      namespace: capi-one
      cluster: web-1
    labels:
      env: prod
      tier: api
`)

	// The same Cluster under a second name: every object would go twice.
	before := w.federationFile(t)
	r = w.run(t, "join", "web-again", "--from-capi", "web-1", "--management-context", mgmt, "-n", "capi-one")
	assert.Equal(t, cmd.ExitError, r.code)
	assert.Contains(t, r.errOut, "Cluster capi-one/web-1 is member web-1 already; a second member of the same cluster would get every object twice")
	assert.Equal(t, before, w.federationFile(t), "nothing written")

	r = w.run(t, "get", "clusters")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, fmt.Sprintf("NAME    READY   VERSION    PHASE\nweb-1   True    %s   Provisioned\n", v), r.out)
	r = w.run(t, "get", "clusters", "-o", "wide")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Regexp(t, `^NAME\s+READY\s+VERSION\s+PHASE\s+CONTEXT\s+LABELS\s+CONTROLPLANEREADY\s+INFRASTRUCTUREREADY\s+MESSAGE\n`+
		`web-1\s+True\s+v\S+\s+Provisioned\s+capi:mgmt/capi-one/web-1\s+env=prod,tier=api\s+True\s+True\s+/healthz responded with ok\n$`, r.out)
	r = w.run(t, "get", "clusters", "-o", "json")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Contains(t, r.out, `
            "capi": {
                "managementContext": "mgmt",
                "namespace": "capi-one",
                "cluster": "web-1"
            },`)
	assert.Contains(t, r.out, `
                "clusterAPI": {
                    "apiVersion": "cluster.x-k8s.io/v1beta1",
                    "phase": "Provisioned",
                    "controlPlaneReady": "True",
                    "infrastructureReady": "True"
                }`)

	// apply reaches the member through its Secret: the objects land in
	// cluster2, and the Secret is read once in the run, however many
	// clients apply makes.
	app := w.writeApp(t, "capi-one-app", "v1")
	r = w.run(t, "apply", "-f", app, "-v", "6")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, "v1", configMapValue(t, "cluster2", "capi-one-app"))
	assert.Equal(t, 1, requests(r.errOut, "management mgmt", "/secrets/web-1-kubeconfig"), "the Secret is read once per run")
	assert.Equal(t, 1, requests(r.errOut, "management mgmt", ""), "apply sends the management cluster nothing else")
	t.Logf("apply -v 6: %d requests to the management cluster, %d to web-1", requests(r.errOut, "management mgmt", ""), requests(r.errOut, "web-1", ""))

	r = w.run(t, "get", "clusters", "-v", "6")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, 1, requests(r.errOut, "management mgmt", "/apis/cluster.x-k8s.io?"), "Cluster API's version is discovered once")
	assert.Equal(t, 1, requests(r.errOut, "management mgmt", "/clusters/web-1?"), "the Cluster is read once")
	assert.Equal(t, 1, requests(r.errOut, "management mgmt", "/secrets/web-1-kubeconfig"), "the Secret is read once")
	assert.Equal(t, 3, requests(r.errOut, "management mgmt", ""))

	// client-go's own log (-v 7: request headers) shows no credential either
	// (assertNoCredentials).
	r = w.run(t, "get", "clusters", "-v", "7")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
}

// TestJoinAllFromClusterAPI: --all joins every Cluster -l matches, with its
// labels (--copy-labels); those that cannot be joined are reported and the
// exit code is 3; running it again skips what is joined; nothing matching
// is an error.
func TestJoinAllFromClusterAPI(t *testing.T) {
	w := newWorkspace(t, "capi-all")
	prod := map[string]string{"env": "prod"}
	w.createCluster(t, "a-1", map[string]string{"env": "prod", "region": "eu"}, "Provisioned", true, false)
	w.putKubeconfigSecret(t, "a-1", "cluster2")
	w.createCluster(t, "a-2", prod, "Provisioned", true, false)
	w.putKubeconfigSecret(t, "a-2", "cluster3")
	w.createCluster(t, "a-3", prod, "Provisioning", false, false) // no Secret yet
	w.createCluster(t, "a-4", prod, "Provisioned", true, true)
	w.putKubeconfigSecret(t, "a-4", "cluster3")
	w.deleteCluster(t, "a-4") // kept by its finalizer: being deleted
	w.createCluster(t, "b-1", map[string]string{"env": "dev"}, "Provisioned", true, false)
	w.putKubeconfigSecret(t, "b-1", "cluster2")
	v := testenv.KubernetesVersion

	all := []string{"join", "--all", "--from-capi", "--management-context", mgmt, "-n", "capi-all", "-l", "env=prod", "--copy-labels"}
	r := w.run(t, all...)
	assert.Equal(t, cmd.ExitPartial, r.code, r.errOut)
	assert.Equal(t, "✓ cluster/a-1 joined (Cluster API cluster capi-all/a-1 in management cluster mgmt, Kubernetes "+v+")\n"+
		"✓ cluster/a-2 joined (Cluster API cluster capi-all/a-2 in management cluster mgmt, Kubernetes "+v+")\n"+
		"✗ cluster/a-3 not joined: cluster a-3: Secret capi-all/a-3-kubeconfig not found in management cluster mgmt: is the Cluster provisioned? kubectl --context mgmt -n capi-all get cluster a-3\n"+
		"✗ cluster/a-4 not joined: Cluster capi-all/a-4 is being deleted in management cluster mgmt (deletionTimestamp set, phase Provisioned); not probed\n"+
		"error: 2 Cluster(s) not joined: a-3, a-4\n", r.errOut)
	fed := w.federationFile(t)
	assert.Contains(t, fed, `  - name: a-1
    capi:
      managementContext: mgmt
      namespace: capi-all
      cluster: a-1
    labels:
      env: prod
      region: eu
  - name: a-2
`)
	assert.NotContains(t, fed, "a-3")
	assert.NotContains(t, fed, "b-1", "-l selects")

	// Again, once a-3's Secret is there: a-1 and a-2 are skipped, a-3 joins.
	w.putKubeconfigSecret(t, "a-3", "cluster2")
	r = w.run(t, all...)
	assert.Equal(t, cmd.ExitPartial, r.code, "a-4 still fails: %s", r.errOut)
	assert.Contains(t, r.errOut, `! cluster/a-1 skipped: already a member (Cluster API cluster capi-all/a-1 in management cluster mgmt); --overwrite replaces it`)
	assert.Contains(t, r.errOut, "✓ cluster/a-3 joined")
	assert.Contains(t, w.federationFile(t), "name: a-3")

	// --selector is -l's long name; -o name lists what was joined.
	r = w.run(t, "join", "--all", "--from-capi", "--management-context", mgmt, "-n", "capi-all", "--selector", "env=dev", "-o", "name")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, "cluster/b-1\n", r.out)

	r = w.run(t, "join", "--all", "--from-capi", "--management-context", mgmt, "-n", "capi-all", "-l", "env=none")
	assert.Equal(t, cmd.ExitError, r.code)
	assert.Equal(t, "error: no Cluster matching env=none in namespace capi-all of management cluster mgmt, so nothing was joined; list them with: kubectl --context mgmt get clusters.cluster.x-k8s.io -n capi-all --show-labels\n", r.errOut)

	// every member from the Secrets, reached: four members, one run
	r = w.run(t, "get", "clusters", "-v", "6")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Regexp(t, `^NAME\s+READY\s+VERSION\s+PHASE\na-1\s+True\s+\S+\s+Provisioned\na-2\s+True\s+\S+\s+Provisioned\na-3\s+True\s+\S+\s+Provisioning\nb-1\s+True`, r.out)
	t.Logf("get clusters -v 6 with 4 members from Cluster API: %d requests to the management cluster", requests(r.errOut, "management mgmt", ""))
	assert.Equal(t, 1+4+4, requests(r.errOut, "management mgmt", ""), "one discovery, then per member one Cluster and one Secret")
}

// TestClusterAPIRotationAndDeletion: a rotated Secret is used by the next
// run, with no change to the federation file; a Secret that is gone or
// rejected is reported for its member alone; a deleted Cluster, or one
// being deleted, shows not ready with the reason and is not probed, and get
// clusters exits 3 as for any member that is not ready.
func TestClusterAPIRotationAndDeletion(t *testing.T) {
	w := newWorkspace(t, "capi-life")
	for _, name := range []string{"r-1", "r-2", "r-3"} {
		w.createCluster(t, name, map[string]string{"fleet": "life"}, "Provisioned", true, name == "r-3")
	}
	w.putKubeconfigSecret(t, "r-1", "cluster2")
	w.putKubeconfigSecret(t, "r-2", "cluster3")
	w.putKubeconfigSecret(t, "r-3", "cluster3")
	r := w.run(t, "join", "--all", "--from-capi", "--management-context", mgmt, "-n", "capi-life", "-l", "fleet=life", "--copy-labels")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	joined := w.federationFile(t)

	app := w.writeApp(t, "capi-life-app", "v1")
	r = w.run(t, "apply", "-f", app)
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	require.Equal(t, "v1", configMapValue(t, "cluster2", "capi-life-app"), "r-1 is cluster2")

	// Rotation: r-1's Secret now holds a new certificate for another server.
	// The next run reads it; the federation file is unchanged.
	w.putKubeconfigSecret(t, "r-1", "cluster3")
	app = w.writeApp(t, "capi-life-app", "v2")
	r = w.run(t, "apply", "-f", app)
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, "v2", configMapValue(t, "cluster3", "capi-life-app"), "r-1 is cluster3 now")
	assert.Equal(t, "v1", configMapValue(t, "cluster2", "capi-life-app"), "cluster2 is no member any more, so it was not written")
	assert.Equal(t, joined, w.federationFile(t))

	// A credential the member rejects: that member is not ready, with what
	// to check; the others are.
	w.putTokenSecret(t, "r-1", "cluster2", "not-a-token-the-server-knows")
	r = w.run(t, "get", "clusters", "r-1", "r-2", "-o", "wide")
	assert.Equal(t, cmd.ExitPartial, r.code)
	assert.Regexp(t, `\nr-1\s+Offline\s+<none>\s+Provisioned\s+capi:mgmt/capi-life/r-1\s+fleet=life\s+True\s+True\s+cluster r-1: API server https://127\.0\.0\.1:\d+ \(Cluster API cluster capi-life/r-1 in management cluster mgmt\) rejected the credentials of the kubeconfig in Secret capi-life/r-1-kubeconfig \(401 Unauthorized\); compare it with what clusterctl get kubeconfig r-1 -n capi-life --kubeconfig-context mgmt gives\n`, r.out)
	assert.Regexp(t, `\nr-2\s+True\s`, r.out)
	assert.Equal(t, "error: 1 of 2 member cluster(s) not ready: r-1 (Offline); --ignore-not-ready to exit 0 all the same\n", r.errOut)

	// A Secret that is gone: ConfigMalformed for get clusters, and apply
	// reports that member and does the others (exit 3).
	w.deleteSecret(t, "r-1")
	r = w.run(t, "get", "clusters", "r-1", "-o", "wide")
	assert.Equal(t, cmd.ExitError, r.code, "the one member asked for is not ready: %s", r.errOut)
	assert.Contains(t, r.out, "cluster r-1: Secret capi-life/r-1-kubeconfig not found in management cluster mgmt: is the Cluster provisioned? kubectl --context mgmt -n capi-life get cluster r-1\n")
	assert.Regexp(t, `\nr-1\s+ConfigMalformed\s+<none>\s+Provisioned\s`, r.out)
	app = w.writeApp(t, "capi-life-app", "v3")
	r = w.run(t, "apply", "-f", app)
	assert.Equal(t, cmd.ExitPartial, r.code, r.errOut)
	assert.Contains(t, r.errOut, "Secret capi-life/r-1-kubeconfig not found in management cluster mgmt")
	assert.Equal(t, "v3", configMapValue(t, "cluster3", "capi-life-app"), "r-2 and r-3 (cluster3) got it")

	// Deleted (r-2) and being deleted (r-3): not ready with the reason,
	// without a request to either member; exit 3 as for any member that is
	// not ready.
	w.putKubeconfigSecret(t, "r-1", "cluster2")
	w.deleteCluster(t, "r-2")
	w.deleteCluster(t, "r-3")
	r = w.run(t, "get", "clusters", "-o", "wide", "-v", "6")
	assert.Equal(t, cmd.ExitPartial, r.code)
	assert.Contains(t, r.errOut, "error: 2 of 3 member cluster(s) not ready: r-2 (False), r-3 (False); --ignore-not-ready to exit 0 all the same\n")
	assert.Zero(t, requests(r.errOut, "r-2", ""), "a deleted Cluster's member is not probed")
	assert.Zero(t, requests(r.errOut, "r-3", ""), "nor one being deleted")
	assert.Zero(t, requests(r.errOut, "management mgmt", "/secrets/r-2-kubeconfig"), "nor is its Secret read")
	assert.Regexp(t, `\nr-1\s+True\s+v\S+\s+Provisioned\s`, r.out)
	assert.Regexp(t, `\nr-2\s+False\s+<none>\s+NotFound\s+capi:mgmt/capi-life/r-2\s+fleet=life\s+<none>\s+<none>\s+Cluster capi-life/r-2 not found in management cluster mgmt: deleted\? kubectl --context mgmt -n capi-life get cluster r-2\n`, r.out)
	assert.Regexp(t, `\nr-3\s+False\s+<none>\s+Provisioned\s+capi:mgmt/capi-life/r-3\s+fleet=life\s+True\s+True\s+Cluster capi-life/r-3 is being deleted in management cluster mgmt \(deletionTimestamp set, phase Provisioned\); not probed\n`, r.out)

	r = w.run(t, "get", "clusters", "r-2", "-o", "yaml")
	assert.Equal(t, cmd.ExitError, r.code, r.errOut)
	assert.Contains(t, r.out, `  status:
    clusterAPI:
      apiVersion: cluster.x-k8s.io/v1beta1
      phase: NotFound
    conditions:
    - message: 'Cluster capi-life/r-2 not found in management cluster mgmt: deleted?
        kubectl --context mgmt -n capi-life get cluster r-2'
      reason: ClusterDeleted
      status: "False"
      type: Ready
`)
}

// TestJoinFromClusterAPIRejects: what join refuses, and that it then
// leaves the federation file alone.
func TestJoinFromClusterAPIRejects(t *testing.T) {
	w := newWorkspace(t, "capi-no")
	w.createCluster(t, "gone", nil, "Provisioned", true, false)
	w.putTokenSecret(t, "bad", "cluster2", "not-a-token-the-server-knows")
	w.createCluster(t, "bad", nil, "Provisioned", true, false)
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"a Cluster that does not exist", []string{"join", "nope", "--from-capi", "--management-context", mgmt}, cmd.ExitError,
			"error: cannot join nope: no Cluster nope in namespace capi-no of management cluster mgmt; list them with kubectl --context mgmt -n capi-no get clusters.cluster.x-k8s.io\n"},
		{"a Cluster without its Secret", []string{"join", "x", "--from-capi", "gone", "--management-context", mgmt}, cmd.ExitError,
			"error: cannot join x: cluster x: Secret capi-no/gone-kubeconfig not found in management cluster mgmt: is the Cluster provisioned? kubectl --context mgmt -n capi-no get cluster gone\n"},
		{"credentials the member rejects", []string{"join", "bad", "--from-capi", "--management-context", mgmt}, cmd.ExitError,
			"error: cannot join bad: cluster bad: API server " + env.Cluster("cluster2").Server + " (Cluster API cluster capi-no/bad in management cluster mgmt) rejected the credentials of the kubeconfig in Secret capi-no/bad-kubeconfig (401 Unauthorized)"},
		{"a management context that does not exist", []string{"join", "x", "--from-capi", "--management-context", "nope"}, cmd.ExitError,
			"error: cannot join x: management context \"nope\" in KUBECONFIG=" + w.kubeconfig + ": not found; available contexts: mgmt, no-capi\n"},
		{"a management cluster without Cluster API", []string{"join", "x", "--from-capi", "--management-context", "no-capi", "-n", "default"}, cmd.ExitError,
			"error: cannot join x: Cluster API is not installed in management cluster no-capi: it serves no API group cluster.x-k8s.io; is \"no-capi\" the management cluster's context?\n"},
		{"--from-capi without --management-context", []string{"join", "x", "--from-capi"}, cmd.ExitUsage,
			"error: --from-capi needs --management-context MGMT, the kubeconfig context of the Cluster API management cluster\n"},
		{"--all with a NAME", []string{"join", "x", "--all", "--from-capi", "--management-context", mgmt}, cmd.ExitUsage,
			"error: --all joins every Cluster under its own name; it takes no NAME, got \"x\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := w.run(t, tt.args...)
			assert.Equal(t, tt.code, r.code)
			assert.True(t, strings.HasPrefix(r.errOut, tt.wantErr), "stderr:\n%s\nwant prefix:\n%s", r.errOut, tt.wantErr)
			_, err := os.Stat(w.fedPath)
			assert.True(t, os.IsNotExist(err), "nothing was written")
		})
	}
}
