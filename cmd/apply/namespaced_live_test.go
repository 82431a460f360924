package apply

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// tenantKubeconfig creates namespace ns in every member and, in it, a
// ServiceAccount bound to a Role that may do anything in ns and nothing
// elsewhere, and returns a kubeconfig with a context "<cluster>-tenant"
// per member that authenticates as it: the rights of a team that owns one
// namespace, as KubeFed's namespaced control plane had.
func tenantKubeconfig(t *testing.T, e *testenv.Env, ns string) string {
	t.Helper()
	ctx := context.Background()
	kc, err := clientcmd.LoadFromFile(e.Kubeconfig)
	require.NoError(t, err)
	for _, cluster := range clusterNames {
		c := client(t, cluster)
		objs := []struct {
			gvr schema.GroupVersionResource
			obj map[string]any
		}{
			{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}},
			{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, map[string]any{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": map[string]any{"name": "tenant", "namespace": ns}}},
			{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles"}, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": map[string]any{"name": "tenant", "namespace": ns},
				"rules": []any{map[string]any{"apiGroups": []any{"*"}, "resources": []any{"*"}, "verbs": []any{"*"}}}}},
			{schema.GroupVersionResource{Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings"}, map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": map[string]any{"name": "tenant", "namespace": ns},
				"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "tenant"},
				"subjects": []any{map[string]any{"kind": "ServiceAccount", "name": "tenant", "namespace": ns}}}},
		}
		for _, o := range objs {
			u := &unstructured.Unstructured{Object: o.obj}
			var err error
			if u.GetNamespace() != "" {
				_, err = c.Resource(o.gvr).Namespace(ns).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "test", Force: true})
			} else {
				_, err = c.Resource(o.gvr).Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "test", Force: true})
			}
			require.NoError(t, err)
		}
		cfg, err := e.RESTConfig(cluster)
		require.NoError(t, err)
		tok, err := kubernetesClient(t, cfg).CoreV1().ServiceAccounts(ns).CreateToken(ctx, "tenant", tokenRequest(3600), metav1.CreateOptions{})
		require.NoError(t, err)
		via := kc.Contexts[cluster].DeepCopy()
		user := kc.AuthInfos[via.AuthInfo].DeepCopy()
		user.Token, user.TokenFile = tok.Status.Token, ""
		user.ClientCertificateData, user.ClientKeyData = nil, nil
		kc.AuthInfos[cluster+"-tenant"] = user
		via.AuthInfo = cluster + "-tenant"
		kc.Contexts[cluster+"-tenant"] = via
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path))
	return path
}

// TestApplyNamespaceScoped: a federation scoped to namespace "team" (its
// file's namespace), applied with credentials that reach that namespace
// alone. Objects without a namespace go there and propagate without a
// FederatedNamespace, as in KubeFed's namespaced control plane; fedctl
// reads the members in the namespace alone, so pruning works with those
// rights; a FederatedNamespace for it limits where objects go and is never
// propagated (the namespace stays in every member); objects outside the
// namespace and cluster-scoped ones are errors before any write.
func TestApplyNamespaceScoped(t *testing.T) {
	e := testenv.Require(t, env)
	const ns = "team"
	kubeconfig := tenantKubeconfig(t, e, ns)
	fed := federationOf()
	fed.Namespace = ns
	for _, c := range clusterNames {
		m, _ := fed.Member(c)
		m.Context = c + "-tenant"
		require.NoError(t, fed.Put(m, true))
	}
	dir := t.TempDir()
	unnamespaced := func(doc string) string { return strings.ReplaceAll(doc, "  namespace: team\n", "") }
	rsp := `---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web}
spec: {targetKind: FederatedDeployment, totalReplicas: 6}
`
	app := unnamespaced(deploymentDoc(ns, "web", "nginx", 1, "", allClusters, "")+configMapDoc(ns, "cfg", "v1", allClusters, "")) + rsp
	write(t, dir, app)
	prune := []string{"-f", dir, "--prune", "--applyset", "app"}
	r := runApplyVia(t, fed, kubeconfig, nil, prune...)
	require.NoError(t, r.err, r.errOut)
	for _, c := range clusterNames {
		assert.Equal(t, propagate.Created, r.action(c, "ConfigMap", ns, "cfg"), c)
		assert.Equal(t, int64(2), mustGet(t, c, deployGVR, ns, "web").Object["spec"].(map[string]any)["replicas"], c)
		assert.Equal(t, propagate.Action(""), r.action(c, "Namespace", "", ns), "no Namespace is applied")
	}

	// pruning reads the members: in the namespace only, which these
	// credentials allow
	write(t, dir, unnamespaced(deploymentDoc(ns, "web", "nginx", 1, "", allClusters, ""))+rsp)
	r = runApplyVia(t, fed, kubeconfig, nil, prune...)
	require.NoError(t, r.err, r.errOut)
	for _, c := range clusterNames {
		assert.Equal(t, propagate.Deleted, r.action(c, "ConfigMap", ns, "cfg"), c)
		_, err := get(t, c, cmGVR, ns, "cfg")
		assert.True(t, apierrors.IsNotFound(err), "pruned in %s: %v", c, err)
	}

	// a FederatedNamespace for it limits placement and is not propagated
	limit := `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: team, namespace: team}
spec:
  placement:
    clusters: [{name: cluster1}]
---
`
	// --wait reads the members' status: in the namespace alone too
	write(t, dir, limit+unnamespaced(configMapDoc(ns, "cfg2", "v1", allClusters, "")))
	r = runApplyVia(t, fed, kubeconfig, nil, "-f", dir, "--wait", "--timeout", "20s")
	require.NoError(t, r.err, r.errOut)
	assert.Contains(t, r.errOut, "every member object is Current")
	assert.Equal(t, propagate.Created, r.action("cluster1", "ConfigMap", ns, "cfg2"))
	for _, c := range clusterNames {
		_, err := get(t, c, cmGVR, ns, "cfg2")
		assert.Equal(t, c != "cluster1", apierrors.IsNotFound(err), "cfg2 only where the FederatedNamespace goes: %s", c)
		mustGet(t, c, schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", ns)
	}

	// outside the scope: errors with file and line, nothing written
	write(t, dir, configMapDoc("other", "elsewhere", "v1", allClusters, "")+`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedClusterRole
metadata: {name: reader}
spec:
  template: {rules: []}
  placement: {clusterSelector: {}}
`)
	r = runApplyVia(t, fed, kubeconfig, nil, "-f", dir)
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), `manifests.yaml:6: FederatedConfigMap other/elsewhere: metadata.namespace: is "other", outside the federation's namespace team`)
	assert.Contains(t, r.err.Error(), "FederatedClusterRole reader: kind: ClusterRole is cluster-scoped: a federation scoped to namespace team propagates namespaced types only")
	assert.Zero(t, r.requests.counts["cluster1"]["PATCH"], "nothing written")

	r = runApplyVia(t, fed, kubeconfig, nil, "-f", dir, "-n", "other")
	require.Error(t, r.err)
	assert.Contains(t, r.err.Error(), "-n other: the federation is scoped to namespace team")
}
