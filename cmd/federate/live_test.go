package federate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

func runLive(t *testing.T, e *testenv.Env, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	fed := members.New()
	for _, c := range []string{"cluster2", "cluster1"} {
		require.NoError(t, fed.Put(members.Member{Name: c}, false))
	}
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "f.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: e.Kubeconfig}, nil },
	}
	cmd := NewCmdFederate(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestFederateLive(t *testing.T) {
	e := testenv.Require(t, env)
	cfg, err := e.RESTConfig("cluster1")
	require.NoError(t, err)
	client, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "live", Labels: map[string]string{"team": "a"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	labels := map[string]string{"app": "web"}
	_, err = client.AppsV1().Deployments("live").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels, Annotations: map[string]string{"note": "x"}},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	svc, err := client.CoreV1().Services("live").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: labels,
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, svc.Spec.ClusterIP, "the API server assigns a cluster IP")
	require.NotZero(t, svc.Spec.Ports[0].NodePort, "and a node port")
	for _, name := range []string{"cfg", "kube-root-ca.crt"} {
		_, err = client.CoreV1().ConfigMaps("live").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
		require.NoError(t, err)
	}
	// The parent "apply --prune --applyset live" leaves: one member's
	// bookkeeping, so left out.
	_, err = client.CoreV1().Secrets("live").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "live",
		Labels: map[string]string{"applyset.kubernetes.io/id": "applyset-abc-v1"}}}, metav1.CreateOptions{})
	require.NoError(t, err)
	// A service account token: a member's credential, never federated
	// (nor printed).
	_, err = client.CoreV1().Secrets("live").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "bot-token",
		Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}}, Type: corev1.SecretTypeServiceAccountToken,
		Data: map[string][]byte{"token": []byte("s3cr3t-token")}}, metav1.CreateOptions{})
	require.NoError(t, err)
	// What a Deployment controller would create: owned, so left out.
	deploy, err := client.AppsV1().Deployments("live").Get(ctx, "web", metav1.GetOptions{})
	require.NoError(t, err)
	owned := true
	_, err = client.CoreV1().ConfigMaps("live").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owned",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: deploy.UID, Controller: &owned}}}}, metav1.CreateOptions{})
	require.NoError(t, err)

	// One object, from the named member.
	out, _, err := runLive(t, e, "deployments", "web", "-n", "live", "--cluster", "cluster1")
	require.NoError(t, err)
	var fed map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(out), &fed))
	assert.Equal(t, "FederatedDeployment", fed["kind"])
	assert.Equal(t, map[string]any{"name": "web", "namespace": "live"}, fed["metadata"])
	tmpl := fed["spec"].(map[string]any)["template"].(map[string]any)
	assert.Equal(t, map[string]any{"labels": map[string]any{"app": "web"}}, tmpl["metadata"], "only labels survive of the metadata")
	assert.NotContains(t, tmpl, "status")

	// The first member by name is the default; short names resolve.
	again, _, err := runLive(t, e, "deploy", "web", "-n", "live")
	require.NoError(t, err)
	assert.Equal(t, out, again)
	_, _, err = runLive(t, e, "deploy", "web", "-n", "live", "--cluster", "cluster2")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cluster cluster2: API server `)
	assert.Contains(t, err.Error(), `deployments.apps "web" not found`)

	// A namespace with its contents: member-assigned fields and what every
	// namespace gets by itself are left out.
	out, errOut, err := runLive(t, e, "namespace", "live", "--contents", "--cluster", "cluster1")
	require.NoError(t, err)
	var kinds []string
	for _, doc := range strings.Split(out, "\n---\n") {
		var obj map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(doc), &obj))
		meta := obj["metadata"].(map[string]any)
		kinds = append(kinds, obj["kind"].(string)+" "+meta["name"].(string))
		if obj["kind"] == "FederatedService" {
			spec := obj["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
			assert.NotContains(t, spec, "clusterIP")
			assert.NotContains(t, spec, "clusterIPs")
			assert.NotContains(t, spec["ports"].([]any)[0], "nodePort")
		}
	}
	assert.Equal(t, []string{"FederatedNamespace live", "FederatedConfigMap cfg", "FederatedDeployment web", "FederatedService web"}, kinds, "the namespace first, then its contents by type name")
	assert.Contains(t, errOut, "Warning: cluster cluster1: ConfigMap live/kube-root-ca.crt left out: every namespace gets its own\n")
	assert.Contains(t, errOut, "Warning: cluster cluster1: ConfigMap live/owned left out: it is owned by Deployment web\n")
	assert.Contains(t, errOut, "Warning: cluster cluster1: Secret live/live left out: it is the parent of ApplySet applyset-abc-v1, one member's bookkeeping\n")
	assert.Contains(t, errOut, "Warning: cluster cluster1: Secret live/bot-token left out: it is a service account token, one member's credential (each member's token controller fills its own)\n")
	assert.NotContains(t, out, "s3cr3t-token")
	assert.NotContains(t, out, "czNjcjN0LXRva2Vu", "nor base64")

	_, _, err = runLive(t, e, "deployments", "web", "-n", "live", "--contents", "--cluster", "cluster1")
	require.EqualError(t, err, "--contents works for namespaces only, not Deployment")
	_, _, err = runLive(t, e, "nosuchthings", "x", "--cluster", "cluster1")
	require.EqualError(t, err, `cluster cluster1: no API resource named "nosuchthings"; "kubectl api-resources" lists the names the cluster serves`)
}
