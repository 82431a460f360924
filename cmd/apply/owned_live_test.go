package apply

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// TestApplyLeavesServiceAccountSecretsToTheirOwner: a ServiceAccount's
// secrets, written by someone else (the token controller of older
// clusters), survive fedctl's updates, as KubeFed kept them by hand
// (KubeFed pkg/controller/sync/dispatch/retain.go); server-side apply leaves
// the field to its owner.
func TestApplyLeavesServiceAccountSecretsToTheirOwner(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "owned"
	saGVR := schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	sa := func(rev string) string {
		return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedServiceAccount
metadata:
  name: robot
  namespace: %s
spec:
  template:
    metadata:
      labels: {rev: %q}
    automountServiceAccountToken: false
  placement:
    clusterSelector: {}
`, ns, rev)
	}
	write(t, dir, namespaceDoc(ns)+sa("1"))
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "ServiceAccount", ns, "robot", propagate.Created)

	for _, c := range clusterNames {
		update(t, c, saGVR, ns, "robot", "token-controller", func(u *unstructured.Unstructured) {
			require.NoError(t, unstructured.SetNestedSlice(u.Object, []any{map[string]any{"name": "robot-token-" + c}}, "secrets"))
		})
	}
	write(t, dir, namespaceDoc(ns)+sa("2"))
	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "ServiceAccount", ns, "robot", propagate.Configured)
	for _, c := range clusterNames {
		got := mustGet(t, c, saGVR, ns, "robot")
		assert.Equal(t, "2", got.GetLabels()["rev"], c)
		secrets, _, _ := unstructured.NestedSlice(got.Object, "secrets")
		assert.Equal(t, []any{map[string]any{"name": "robot-token-" + c}}, secrets, "the token controller's field is kept in %s", c)
	}
}

// TestApplySecretStringData: a Secret written with stringData (read back
// as base64 data only) is unchanged on a re-apply, and an edit of its data
// in a member is seen and put back.
func TestApplySecretStringData(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "strdata"
	write(t, dir, namespaceDoc(ns)+fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata:
  name: creds
  namespace: %s
spec:
  template:
    stringData: {user: admin}
  placement:
    clusterSelector: {}
`, ns))
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "Secret", ns, "creds", propagate.Created)

	r = runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "Secret", ns, "creds", propagate.Unchanged)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), c)
	}

	update(t, "cluster2", secretGVR, ns, "creds", "someone", func(u *unstructured.Unstructured) {
		require.NoError(t, unstructured.SetNestedField(u.Object, "cm9vdA==", "data", "user"))
	})
	r = runApply(t, fed, "-f", dir, "--force-conflicts")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster2", "Secret", ns, "creds"))
	assert.Equal(t, propagate.Unchanged, r.action("cluster1", "Secret", ns, "creds"))
	user, _, _ := unstructured.NestedString(mustGet(t, "cluster2", secretGVR, ns, "creds").Object, "data", "user")
	assert.Equal(t, "YWRtaW4=", user, "admin again")
}

// TestApplyPartOfTheInput: applying one file of a directory, without the
// FederatedNamespace of its objects, deletes nothing (NamespaceNotFederated
// leaves the member objects alone, as KubeFed does).
func TestApplyPartOfTheInput(t *testing.T) {
	fed := federationOf()
	all, one := t.TempDir(), t.TempDir()
	const ns = "partial"
	write(t, all, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", all).err)

	write(t, one, configMapDoc(ns, "cfg", "v2", allClusters, ""))
	r := runApply(t, fed, "-f", one)
	require.NoError(t, r.err)
	assert.Contains(t, r.errOut, "NamespaceNotFederated")
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "nothing written or deleted in %s: %v", c, r.requests.counts[c])
		assert.Equal(t, "v1", mustGet(t, c, cmGVR, ns, "cfg").Object["data"].(map[string]any)["k"])
	}
}

// TestApplyKeepsANamespaceHoldingOthersObjects: de-placing a
// FederatedNamespace deletes the Namespace only where it holds nothing
// fedctl did not create; where someone else's object lives, the Namespace
// stays and the member reports why (exit 3).
func TestApplyKeepsANamespaceHoldingOthersObjects(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "leaving"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", dir).err)
	createObject(t, "cluster2", cmGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "theirs", "namespace": ns}}, "kubectl")

	only1 := "    clusters: [{name: cluster1}]"
	write(t, dir, fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %s, namespace: %s}
spec:
  placement:
%s
`, ns, ns, only1)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	r := runApply(t, fed, "-f", dir)
	assertPartial(t, r.err, "cluster2")
	assert.Equal(t, propagate.Deleted, r.action("cluster3", "Namespace", "", ns))
	o := r.object("cluster2", "Namespace", "", ns)
	assert.Equal(t, propagate.Failed, o.Action)
	assert.Equal(t, propagate.ReasonNamespaceNotEmpty, o.Reason)
	assert.Contains(t, o.Error, "ConfigMap theirs")
	assert.Equal(t, propagate.Deleted, r.action("cluster2", "ConfigMap", ns, "cfg"), "fedctl's own object goes")
	_, err := get(t, "cluster2", nsGVR, "", ns)
	require.NoError(t, err, "the namespace stays in cluster2")
	mustGet(t, "cluster2", cmGVR, ns, "theirs")
}
