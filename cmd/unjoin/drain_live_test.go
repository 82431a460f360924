package unjoin

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
	"github.com/fedctl/fedctl/pkg/testutil"
)

const drainApp = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: unjoindrain, namespace: unjoindrain}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: unjoindrain}
spec:
  template:
    spec:
      replicas: 6
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec:
          containers: [{name: web, image: "nginx:1.27", resources: {requests: {cpu: 10m}}}]
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: unjoindrain}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 6
`

// TestUnjoinDrain: unjoin --drain moves the member's replicas to the
// others (3/3), removes its objects, then removes it from the federation
// file.
func TestUnjoinDrain(t *testing.T) {
	e := testenv.Require(t, env)
	dir := t.TempDir()
	fedPath := filepath.Join(dir, "federation.yaml")
	require.NoError(t, os.WriteFile(fedPath, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: cluster1}, {name: cluster2}, {name: cluster3}]\ntypes: []\n"), 0o600))
	appDir := filepath.Join(dir, "app")
	require.NoError(t, os.MkdirAll(appDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(appDir, "app.yaml"), []byte(drainApp), 0o600))

	file, err := members.Load(fedPath)
	require.NoError(t, err)
	fed := file.Federation
	out, err := pipeline.Run(pipeline.Input{Docs: testutil.Documents(t, appDir), DefaultNamespace: "default", Members: fed.PlacementClusters(), Types: testutil.Registry(t, fed)})
	require.NoError(t, err)
	access := members.Access{Kubeconfig: e.Kubeconfig}
	report := propagate.Run(context.Background(), propagate.Input{Result: out.Result, Clusters: fed.Names(), Clients: members.Clients(fed, access, members.NewMemberClient)})
	require.Empty(t, report.Failed())

	ios, _, _, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios,
		Federation: func() (*members.File, error) { return members.Load(fedPath) },
		Access:     func() (members.Access, error) { return access, nil },
	}
	cmd := NewCmdUnjoin(f, nil)
	cmd.SetArgs([]string{"cluster2", "--drain", "-f", appDir})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.ExecuteContext(context.Background()), errOut.String())
	assert.Contains(t, errOut.String(), "cluster/cluster2 drained: 2 objects removed")

	file, err = members.Load(fedPath)
	require.NoError(t, err)
	assert.Equal(t, []string{"cluster1", "cluster3"}, file.Federation.Names(), "unjoined after the drain")
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for c, want := range map[string]int64{"cluster1": 3, "cluster3": 3} {
		dc := e.Dynamic(t, c)
		obj, err := dc.Resource(deployments).Namespace("unjoindrain").Get(context.Background(), "web", metav1.GetOptions{})
		require.NoError(t, err)
		assert.Equal(t, want, obj.Object["spec"].(map[string]any)["replicas"], "in %s", c)
	}
	dc := e.Dynamic(t, "cluster2")
	_, err = dc.Resource(deployments).Namespace("unjoindrain").Get(context.Background(), "web", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "%v", err)
}

// TestUnjoinDrainFlags: -f, -k and --force go with --drain only.
func TestUnjoinDrainFlags(t *testing.T) {
	ios, _, _, _ := iostreams.Test()
	cmd := NewCmdUnjoin(&cmdutil.Factory{IOStreams: ios}, func(*UnjoinOptions) error { return nil })
	cmd.SetArgs([]string{"cluster2", "-f", "x.yaml"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	assert.EqualError(t, cmd.Execute(), "-f, -k and --force go with --drain")
}
