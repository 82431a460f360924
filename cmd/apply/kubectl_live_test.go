package apply

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	rendercmd "github.com/fedctl/fedctl/cmd/render"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
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
}
