package capi

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/cmd"
)

// v1beta2Management is the test cluster that plays a management cluster of
// a Cluster API release that serves Cluster in v1beta2 only; mgmtV1beta2
// is its context. cluster3 stays without Cluster API (no-capi).
const (
	v1beta2Management = "cluster2"
	mgmtV1beta2       = "mgmt-v1beta2"
)

var clustersV1beta2GVR = schema.GroupVersionResource{Group: "cluster.x-k8s.io", Version: "v1beta2", Resource: "clusters"}

// v1beta2Condition is a v1beta2 (metav1) condition: reason and message are
// required, and there is no severity.
func v1beta2Condition(typ string, ok bool) map[string]any {
	status, reason := "True", typ
	if !ok {
		status, reason = "False", "Not"+typ
	}
	return map[string]any{"type": typ, "status": status, "reason": reason, "message": "",
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339), "observedGeneration": int64(1)}
}

// TestJoinFromClusterAPIV1beta2: a management cluster that serves Cluster
// in v1beta2 only (a Cluster API release that dropped v1beta1). fedctl
// discovers the version, joins the member, reads its status the v1beta2
// way (ControlPlaneAvailable for the control plane, failures under
// status.deprecated.v1beta1), and reaches it through its Secret.
func TestJoinFromClusterAPIV1beta2(t *testing.T) {
	const ns = "capi-v1beta2"
	w := newWorkspace(t, ns)
	require.NoError(t, applyCRD(env.Dynamic(t, v1beta2Management), "../../testdata/crds/cluster.x-k8s.io_clusters_v1beta2.yaml", clustersV1beta2GVR))

	// the management context, beside the workspace's
	mc := env.Cluster(v1beta2Management)
	cfg, err := clientcmd.LoadFromFile(w.kubeconfig)
	require.NoError(t, err)
	cfg.Clusters[mgmtV1beta2] = &clientcmdapi.Cluster{Server: mc.Server, CertificateAuthorityData: env.CAData()}
	cfg.AuthInfos[mgmtV1beta2] = &clientcmdapi.AuthInfo{Token: mc.Token}
	cfg.Contexts[mgmtV1beta2] = &clientcmdapi.Context{Cluster: mgmtV1beta2, AuthInfo: mgmtV1beta2, Namespace: ns}
	require.NoError(t, clientcmd.WriteToFile(*cfg, w.kubeconfig))
	w.sensitive([]byte(mc.Token))
	rc, err := env.RESTConfig(v1beta2Management)
	require.NoError(t, err)
	core, err := kubernetes.NewForConfig(rc)
	require.NoError(t, err)
	_, err = core.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	require.NoError(t, err)

	// web-2, a v1beta2 Cluster whose workload cluster is cluster3
	certPEM, keyPEM, err := env.ClientCertificate("web-2-admin", "system:masters")
	require.NoError(t, err)
	w.sensitive(certPEM, keyPEM)
	w.putSecretIn(t, core, ns, "web-2", "cluster3", &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM})
	clusters := env.Dynamic(t, v1beta2Management).Resource(clustersV1beta2GVR).Namespace(ns)
	created, err := clusters.Create(context.Background(), &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cluster.x-k8s.io/v1beta2",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": "web-2", "namespace": ns, "labels": map[string]any{"env": "prod"}},
		"spec":       map[string]any{"clusterNetwork": map[string]any{"pods": map[string]any{"cidrBlocks": []any{"192.168.0.0/16"}}}},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	created.Object["status"] = map[string]any{
		"phase":              "Provisioned",
		"observedGeneration": int64(1),
		"initialization":     map[string]any{"infrastructureProvisioned": true, "controlPlaneInitialized": true},
		"conditions": []any{v1beta2Condition("Available", true), v1beta2Condition("ControlPlaneAvailable", true),
			v1beta2Condition("InfrastructureReady", true)},
	}
	created, err = clusters.UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	require.NoError(t, err)

	r := w.run(t, "join", "web-2", "--from-capi", "--management-context", mgmtV1beta2, "--copy-labels", "-v", "6")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Contains(t, r.errOut, "✓ cluster/web-2 joined (Cluster API cluster "+ns+"/web-2 in management cluster "+mgmtV1beta2+", Kubernetes ")
	assert.Equal(t, 1, requests(r.errOut, "management "+mgmtV1beta2, "/apis/cluster.x-k8s.io/v1beta2/namespaces/"+ns+"/clusters/web-2"), "read in the version served")
	assert.Zero(t, requests(r.errOut, "management "+mgmtV1beta2, "/apis/cluster.x-k8s.io/v1beta1/"), "never in the one not served")
	assert.Contains(t, w.federationFile(t), "      managementContext: "+mgmtV1beta2+"\n      namespace: "+ns+"\n      cluster: web-2\n    labels:\n      env: prod\n")

	r = w.run(t, "get", "clusters", "-o", "json")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Contains(t, r.out, `
                "clusterAPI": {
                    "apiVersion": "cluster.x-k8s.io/v1beta2",
                    "phase": "Provisioned",
                    "controlPlaneReady": "True",
                    "infrastructureReady": "True"
                }`)

	// apply reaches it through its Secret
	app := w.writeApp(t, "capi-v1beta2-app", "v1")
	r = w.run(t, "apply", "-f", app)
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Equal(t, "v1", configMapValue(t, "cluster3", "capi-v1beta2-app"))

	// The control plane stops serving, then the Cluster fails: v1beta2
	// keeps v1beta1's failure under status.deprecated.v1beta1.
	created.Object["status"].(map[string]any)["conditions"] = []any{v1beta2Condition("Available", false), v1beta2Condition("ControlPlaneAvailable", false),
		v1beta2Condition("InfrastructureReady", true)}
	created, err = clusters.UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	require.NoError(t, err)
	r = w.run(t, "get", "clusters", "-o", "wide")
	require.Equal(t, cmd.ExitOK, r.code, r.errOut)
	assert.Regexp(t, `\nweb-2\s+True\s+v\S+\s+Provisioned\s+capi:`+mgmtV1beta2+`/`+ns+`/web-2\s+env=prod\s+False\s+True\s`, r.out, "CONTROLPLANEREADY is ControlPlaneAvailable")

	status := created.Object["status"].(map[string]any)
	status["phase"] = "Failed"
	status["deprecated"] = map[string]any{"v1beta1": map[string]any{"failureReason": "InvalidConfiguration", "failureMessage": "no capacity in eu-west-1"}}
	_, err = clusters.UpdateStatus(context.Background(), created, metav1.UpdateOptions{})
	require.NoError(t, err)
	r = w.run(t, "get", "clusters", "-o", "wide", "-v", "6")
	assert.Equal(t, cmd.ExitError, r.code, "its only member is not ready")
	assert.Regexp(t, `\nweb-2\s+False\s+<none>\s+Failed\s.*Cluster `+ns+`/web-2 failed \(phase Failed\) in management cluster `+mgmtV1beta2+`; not probed: InvalidConfiguration: no capacity in eu-west-1\n`, r.out)
	assert.Zero(t, requests(r.errOut, "web-2", ""), "a failed Cluster's member is not probed")
}
