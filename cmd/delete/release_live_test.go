package delete

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestRelease: after fedctl release, kubectl apply --server-side by another
// field manager that changes a field fedctl set takes it over with no conflict,
// nothing was recreated (same UID), fedctl's marks are gone, and a later
// fedctl delete leaves the object alone.
func TestRelease(t *testing.T) {
	const ns = "release"
	fed := federationOf()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: release, namespace: release}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: cfg, namespace: release}
spec:
  template: {data: {k: fedctl}}
  placement: {clusterSelector: {}}
`), 0o600))
	runApply(t, fed, "-f", dir, "--prune", "--applyset", "app", "-n", ns)

	dc := testenv.Require(t, env).Dynamic(t, "cluster1")
	before, err := dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "cfg", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, federation.ManagedByValue, before.GetLabels()[federation.ManagedByLabel])

	errOut := runRelease(t, fed, "-f", dir)
	t.Logf("stderr:\n%s", errOut)
	assert.Contains(t, errOut, "cluster cluster1: 2 objects released")

	after, err := dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "cfg", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, before.GetUID(), after.GetUID(), "not recreated")
	assert.NotContains(t, after.GetLabels(), federation.ManagedByLabel)
	assert.NotContains(t, after.GetLabels(), federation.ApplySetPartOfLabel)
	assert.NotContains(t, after.GetAnnotations(), federation.SourceAnnotation)
	assert.Equal(t, "true", after.GetAnnotations()["fedctl.io/released"])
	for _, e := range after.GetManagedFields() {
		assert.NotEqual(t, "fedctl", e.Manager, "fedctl owns no field any more")
	}
	assert.Equal(t, map[string]any{"k": "fedctl"}, after.Object["data"], "nothing else changed")

	// the new owner changes what fedctl set, with kubectl apply
	// --server-side and no --force-conflicts: no conflict
	kubectl, err := testenv.EnsureKubectl(context.Background(), os.Stderr)
	require.NoError(t, err)
	apply := exec.Command(kubectl, "--kubeconfig", testenv.Require(t, env).Kubeconfig, "--context", "cluster1",
		"apply", "--server-side", "--field-manager", "argocd-controller", "-f", "-")
	apply.Stdin = strings.NewReader("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: " + ns + "}\ndata: {k: argo}\n")
	out, err := apply.CombinedOutput()
	require.NoError(t, err, "a new field manager takes the fields over with no conflict:\n%s", out)
	assert.Equal(t, "configmap/cfg serverside-applied\n", string(out))
	taken, err := dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "cfg", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, before.GetUID(), taken.GetUID(), "not recreated")
	assert.Equal(t, map[string]any{"k": "argo"}, taken.Object["data"])

	// fedctl no longer deletes it
	rep, _, err := runDelete(t, fed, "-f", dir)
	require.NoError(t, err)
	_ = rep
	_, err = dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "cfg", metav1.GetOptions{})
	assert.NoError(t, err, "a released object is not fedctl's to delete")
}

// TestReleaseApplySet: with --applyset, the set's parent stays while the
// set still holds objects in a member (a release of some of them, named in
// the member's line) and in a dry run, and goes once the set is empty; the
// released objects stay, with the same UIDs.
func TestReleaseApplySet(t *testing.T) {
	const ns = "release-set"
	fed := federationOf()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: release-set, namespace: release-set, labels: {part: base}}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: one, namespace: release-set, labels: {part: first}}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: two, namespace: release-set, labels: {part: base}}
spec:
  template: {data: {k: v}}
  placement: {clusterSelector: {}}
`), 0o600))
	runApply(t, fed, "-f", dir, "--prune", "--applyset", "shop", "-n", ns)

	dc := testenv.Require(t, env).Dynamic(t, "cluster1")
	secrets := dc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace(ns)
	parent, err := secrets.Get(context.Background(), "shop", metav1.GetOptions{})
	require.NoError(t, err)
	uid, err := dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "one", metav1.GetOptions{})
	require.NoError(t, err)

	errOut := runRelease(t, fed, "-f", dir, "-l", "part=first", "--applyset", "shop", "-n", ns)
	assert.Contains(t, errOut, "cluster cluster1: 1 objects released; the ApplySet parent stays: the set still holds ConfigMap release-set/two, Namespace release-set")
	_, err = secrets.Get(context.Background(), "shop", metav1.GetOptions{})
	require.NoError(t, err, "the set is not empty: its parent stays")

	errOut = runRelease(t, fed, "-f", dir, "--applyset", "shop", "--dry-run=server")
	assert.Contains(t, errOut, "ApplySet shop: using namespace release-set, where its parent Secret shop is", "found without -n, as apply finds it")
	assert.Contains(t, errOut, "cluster cluster1: 2 objects released; ApplySet parent Secret release-set/shop removed")
	_, err = secrets.Get(context.Background(), "shop", metav1.GetOptions{})
	require.NoError(t, err, "a server dry run removes nothing")

	errOut = runRelease(t, fed, "-f", dir, "--applyset", "shop", "-n", ns)
	assert.Contains(t, errOut, "cluster cluster1: 2 objects released; ApplySet parent Secret release-set/shop removed")
	assert.Contains(t, errOut, "cluster cluster2: 2 objects released; ApplySet parent Secret release-set/shop removed")
	_, err = secrets.Get(context.Background(), "shop", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the empty set's parent %s is gone: %v", parent.GetUID(), err)
	after, err := dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "one", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, uid.GetUID(), after.GetUID(), "released objects stay as they were")
	_, err = dc.Resource(cmGVR).Namespace(ns).Get(context.Background(), "two", metav1.GetOptions{})
	require.NoError(t, err)
}

// runRelease runs fedctl release, which must succeed, and returns its
// stderr.
func runRelease(t *testing.T, fed *members.Federation, args ...string) string {
	t.Helper()
	f, output := factory(t, fed)
	cmd := NewCmdRelease(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.ExecuteContext(context.Background()))
	_, errOut := output()
	return errOut
}
