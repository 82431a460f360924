package examples

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/pkg/members"
)

// The Cluster API examples: cluster1 is also the management cluster mgmt,
// with Cluster API's Cluster CRD and, in namespace capi, the Clusters
// web-1 (reaching cluster3) and web-2 (cluster2), both env=prod and
// Provisioned, and their kubeconfig Secrets.

var capiClusters = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta1", Resource: "clusters"}

// clusterAPIManagement adds the context mgmt (cluster1) to ~/.kube/config
// and makes cluster1 a Cluster API management cluster of web-1 and web-2.
func (w *workspace) clusterAPIManagement(t *testing.T) {
	t.Helper()
	path := filepath.Join(w.dir, ".kube", "config")
	cfg, err := clientcmd.LoadFromFile(path)
	require.NoError(t, err)
	src, err := clientcmd.LoadFromFile(w.e.Kubeconfig)
	require.NoError(t, err)
	c := src.Contexts["cluster1"]
	cfg.Contexts["mgmt"] = c.DeepCopy()
	cfg.Clusters[c.Cluster] = src.Clusters[c.Cluster].DeepCopy()
	cfg.AuthInfos[c.AuthInfo] = src.AuthInfos[c.AuthInfo].DeepCopy()
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))

	r := w.kubectl(t, "cluster1", "apply", "-f", filepath.Join(mustAbs(t, "../../testdata/crds"), "cluster.x-k8s.io_clusters.yaml"))
	require.Equal(t, 0, r.code, r.errOut)
	r = w.kubectl(t, "cluster1", "wait", "--for", "condition=Established", "crd/clusters.cluster.x-k8s.io", "--timeout", "30s")
	require.Equal(t, 0, r.code, r.errOut)

	rc, err := w.e.RESTConfig("cluster1")
	require.NoError(t, err)
	core, err := kubernetes.NewForConfig(rc)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = core.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "capi"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	clusters := w.e.Dynamic(t, "cluster1").Resource(capiClusters).Namespace("capi")
	for name, target := range map[string]string{"web-1": "cluster3", "web-2": "cluster2"} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "cluster.x-k8s.io/v1beta1", "kind": "Cluster",
			"metadata": map[string]any{"name": name, "namespace": "capi", "labels": map[string]any{"env": "prod"}},
		}}
		created, err := clusters.Create(ctx, obj, metav1.CreateOptions{})
		require.NoError(t, err)
		now := time.Now().UTC().Format(time.RFC3339)
		created.Object["status"] = map[string]any{"phase": "Provisioned", "controlPlaneReady": true, "infrastructureReady": true, "conditions": []any{
			map[string]any{"type": "ControlPlaneReady", "status": "True", "lastTransitionTime": now},
			map[string]any{"type": "InfrastructureReady", "status": "True", "lastTransitionTime": now},
		}}
		_, err = clusters.UpdateStatus(ctx, created, metav1.UpdateOptions{})
		require.NoError(t, err)

		tc := src.Contexts[target]
		kc := clientcmdapi.NewConfig()
		kc.Clusters[name] = src.Clusters[tc.Cluster].DeepCopy()
		kc.AuthInfos[name+"-admin"] = src.AuthInfos[tc.AuthInfo].DeepCopy()
		kc.Contexts[name+"-admin@"+name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name + "-admin"}
		kc.CurrentContext = name + "-admin@" + name
		value, err := clientcmd.Write(*kc)
		require.NoError(t, err)
		_, err = core.CoreV1().Secrets("capi").Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-kubeconfig", Namespace: "capi", Labels: map[string]string{"cluster.x-k8s.io/cluster-name": name}},
			Type:       "cluster.x-k8s.io/secret",
			Data:       map[string][]byte{"value": value},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
}

// leaveClusterAPI takes web-1 and web-2 out of the federation file, as
// unjoin would, so that the examples after them see eu-1 and us-1 only.
func (w *workspace) leaveClusterAPI(t *testing.T) {
	t.Helper()
	file, err := members.Load(w.federationFile())
	require.NoError(t, err)
	fed := file.Federation.Clone()
	require.True(t, fed.Remove("web-1"))
	require.True(t, fed.Remove("web-2"))
	require.NoError(t, file.Save(fed))
}

func mustAbs(t *testing.T, path string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	require.NoError(t, err)
	_, err = os.Stat(abs)
	require.NoError(t, err)
	return abs
}
