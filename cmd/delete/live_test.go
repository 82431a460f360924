package delete

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/cmd/apply"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func federationOf() *members.Federation {
	fed := members.New()
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		_ = fed.Put(members.Member{Name: c}, false)
	}
	return fed
}

func factory(t *testing.T, fed *members.Federation) (*cmdutil.Factory, func() (string, string)) {
	e := testenv.Require(t, env)
	ios, _, out, errOut := iostreams.Test()
	return &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: e.Kubeconfig}, nil },
	}, func() (string, string) { return out.String(), errOut.String() }
}

func runDelete(t *testing.T, fed *members.Federation, args ...string) (propagate.Report, string, error) {
	t.Helper()
	f, output := factory(t, fed)
	cmd := NewCmdDelete(f, nil)
	cmd.SetArgs(append([]string{"-o", "json"}, args...))
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	out, errOut := output()
	t.Logf("stderr:\n%s", errOut)
	var rep propagate.Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	return rep, errOut, err
}

func runApply(t *testing.T, fed *members.Federation, args ...string) {
	t.Helper()
	f, _ := factory(t, fed)
	cmd := apply.NewCmdApply(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.ExecuteContext(context.Background()))
}

func get(t *testing.T, cluster, ns, name string) (map[string]string, error) {
	t.Helper()
	cfg, err := testenv.Require(t, env).RESTConfig(cluster)
	require.NoError(t, err)
	c, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	obj, err := c.Resource(cmGVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return obj.GetLabels(), nil
}

func configMap(name, annotations string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: %s
  namespace: del
  annotations: {%s}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`, name, annotations)
}

func action(rep propagate.Report, cluster, name string) propagate.Action {
	for _, c := range rep.Clusters {
		for _, o := range c.Objects {
			if c.Cluster == cluster && o.Name == name {
				return o.Action
			}
		}
	}
	return ""
}

// TestDeleteLive: delete removes the member objects everywhere, keeps the
// orphaned ones running unmarked, and an unreachable member neither blocks
// the others nor is forgotten (kubefed#1254): exit 3, and a re-run once it
// is back finishes the job.
func TestDeleteLive(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	nsDir, cmDir := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(nsDir, "ns.yaml"), []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: del, namespace: del}
spec:
  placement: {clusterSelector: {}}
`), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(cmDir, "cm.yaml"), []byte(configMap("cfg", "")+
		configMap("keep", `kubefed.io/orphan: "true"`)+configMap("opt", `kubefed.io/deleteoption: '{"propagationPolicy":"Orphan"}'`)), 0o600))
	runApply(t, fed, "-f", nsDir, "-f", cmDir)

	// a server-side dry run changes nothing
	rep, _, err := runDelete(t, fed, "-f", cmDir, "--dry-run=server")
	require.NoError(t, err)
	assert.Equal(t, propagate.Deleted, action(rep, "cluster1", "cfg"))
	_, err = get(t, "cluster1", "del", "cfg")
	require.NoError(t, err)

	// a client dry run reads the members and writes nothing, not even a
	// dry run; a bare --dry-run means client, with kubectl's warning
	rep, errOut, err := runDelete(t, fed, "-f", cmDir, "--dry-run")
	require.NoError(t, err)
	assert.Equal(t, "client", rep.DryRun)
	assert.Equal(t, propagate.Deleted, action(rep, "cluster2", "cfg"))
	assert.Equal(t, propagate.Orphaned, action(rep, "cluster2", "keep"))
	assert.Contains(t, errOut, "warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n")
	assert.Contains(t, errOut, "(client dry run: nothing written)")
	labels, err := get(t, "cluster2", "del", "keep")
	require.NoError(t, err)
	assert.Contains(t, labels, federation.ManagedByLabel, "a client dry run unmarks nothing")
	_, err = get(t, "cluster2", "del", "cfg")
	require.NoError(t, err, "a client dry run deletes nothing")

	require.NoError(t, e.StopCluster("cluster3"))
	started := false
	defer func() {
		if !started {
			require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
		}
	}()
	rep, errOut, err = runDelete(t, fed, "-f", cmDir, "--timeout", "10s")
	var partial *cmdutil.PartialError
	require.ErrorAs(t, err, &partial)
	assert.Equal(t, []string{"cluster3"}, partial.Failed)
	assert.Contains(t, errOut, "✗ cluster cluster3: ")
	for _, c := range []string{"cluster1", "cluster2"} {
		// named as they go, kubectl-style
		assert.Contains(t, errOut, c+"  configmap/cfg deleted\n")
		assert.Contains(t, errOut, c+"  configmap/keep orphaned\n")
		assert.Equal(t, propagate.Deleted, action(rep, c, "cfg"))
		assert.Equal(t, propagate.Deleted, action(rep, c, "opt"))
		assert.Equal(t, propagate.Orphaned, action(rep, c, "keep"))
		_, err := get(t, c, "del", "cfg")
		assert.True(t, apierrors.IsNotFound(err))
		labels, err := get(t, c, "del", "keep")
		require.NoError(t, err, "orphaned objects keep running")
		assert.NotContains(t, labels, federation.ManagedByLabel)
	}

	require.NoError(t, e.StartCluster(context.Background(), "cluster3"))
	started = true
	rep, _, err = runDelete(t, fed, "-f", cmDir)
	require.NoError(t, err)
	assert.Equal(t, propagate.Deleted, action(rep, "cluster3", "cfg"))
	assert.Equal(t, propagate.Orphaned, action(rep, "cluster3", "keep"))
	// opt was deleted with propagationPolicy Orphan, from its
	// kubefed.io/deleteoption: its orphan finalizer waits for a garbage
	// collector these API servers do not run, so it is still terminating
	require.Len(t, rep.Clusters[0].Objects, 1)
	assert.Equal(t, propagate.ObjectResult{APIVersion: "v1", Kind: "ConfigMap", Namespace: "del", Name: "opt", FederatedObject: "FederatedConfigMap/del/opt",
		Action: propagate.Deleted, Reason: propagate.ReasonTerminating}, rep.Clusters[0].Objects[0])
	_, err = get(t, "cluster3", "del", "cfg")
	assert.True(t, apierrors.IsNotFound(err))
}
