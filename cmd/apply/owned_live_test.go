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
// (§c.2); server-side apply leaves the field to its owner.
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
