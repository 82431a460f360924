package apply

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	rendercmd "github.com/fedctl/fedctl/cmd/render"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/status"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestRenderPipesIntoKubectl runs render's help example on a fresh
// namespace: "fedctl render --cluster C | kubectl --context C apply -f -"
// needs the Namespace before the objects in it, which install order gives.
func TestRenderPipesIntoKubectl(t *testing.T) {
	kubectl := cachedKubectl(t)
	e := testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "pipe"
	write(t, dir, configMapDoc(ns, "cfg", "v1", allClusters, "")+"---\n"+namespaceDoc(ns)+deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))

	ios, _, out, errOut := iostreams.Test()
	fed := federationOf()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) {
		return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
	}}
	cmd := rendercmd.NewCmdRender(f, nil)
	cmd.SetArgs([]string{"-f", dir, "--cluster", "cluster2"})
	require.NoError(t, cmd.Execute(), errOut.String())

	kc := exec.Command(kubectl, "--kubeconfig", e.Kubeconfig, "--context", "cluster2", "apply", "-f", "-")
	kc.Stdin = bytes.NewReader(out.Bytes())
	kc.Env = os.Environ()
	got, err := kc.CombinedOutput()
	t.Logf("kubectl: %s", got)
	require.NoError(t, err, "kubectl apply: %s", got)
	require.Contains(t, string(got), "namespace/pipe created")
	mustGet(t, "cluster2", cmGVR, ns, "cfg")
	mustGet(t, "cluster2", deployGVR, ns, "web")

	// status judges what kubectl applied from the rendered tree by its
	// content: OK, not Drifted, though fedctl never applied it
	rendered, err := cmdutil.Render(ios, cmdutil.RenderInput{Federation: f.Federation, Filenames: []string{dir}, Namespace: "default",
		Clusters: []string{"cluster2"}, Failing: cmdutil.FailOnDecode})
	require.NoError(t, err)
	clients := members.Clients(fed, members.Access{Kubeconfig: e.Kubeconfig}, members.NewMemberClient)
	report := status.Read(context.Background(), status.Input{Result: rendered.Result, Clusters: []string{"cluster2"}, Clients: clients})
	require.Len(t, report.Items, 3)
	for _, item := range report.Items {
		require.Len(t, item.Status.Clusters, 1)
		c := item.Status.Clusters[0]
		assert.Empty(t, c.Status, "OK (an empty status, as KubeFed writes it): %s %s: %s", item.Kind, item.Metadata.Name, c.Message)
	}

	// and an edit after that is Drifted, by content too
	update(t, "cluster2", cmGVR, ns, "cfg", "someone", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "edited", "data", "k"))
	})
	report = status.Read(context.Background(), status.Input{Result: rendered.Result, Clusters: []string{"cluster2"}, Clients: clients})
	for _, item := range report.Items {
		c := item.Status.Clusters[0]
		if item.Kind == "FederatedConfigMap" {
			assert.Equal(t, status.Drifted, c.Status)
			assert.Contains(t, c.Message, "it differs from what fedctl would apply")
		} else {
			assert.Empty(t, c.Status, "%s %s: %s", item.Kind, item.Metadata.Name, c.Message)
		}
	}
}
