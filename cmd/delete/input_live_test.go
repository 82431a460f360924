package delete

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestDeleteSelector: delete -l removes the member objects of the selected
// federated objects only; the others stay, and so does the Namespace of
// the FederatedNamespace -l leaves out.
func TestDeleteSelector(t *testing.T) {
	testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.yaml"), []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: del, namespace: del}
spec:
  placement: {clusterSelector: {}}
`+configMap("sel-a", "")+configMap("sel-b", "")), 0o600))
	// sel-a gets a label of its own
	data, err := os.ReadFile(filepath.Join(dir, "all.yaml"))
	require.NoError(t, err)
	data = []byte(strings.Replace(string(data), "  name: sel-a\n  namespace: del\n", "  name: sel-a\n  namespace: del\n  labels: {app: a}\n", 1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.yaml"), data, 0o600))
	runApply(t, fed, "-f", dir)

	rep, _, err := runDelete(t, fed, "-f", dir, "-l", "app=a")
	require.NoError(t, err)
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		assert.Equal(t, propagate.Deleted, action(rep, c, "sel-a"))
		assert.Equal(t, propagate.Action(""), action(rep, c, "sel-b"))
		_, err := get(t, c, "del", "sel-a")
		assert.True(t, apierrors.IsNotFound(err), "sel-a gone from %s: %v", c, err)
		_, err = get(t, c, "del", "sel-b")
		assert.NoError(t, err, "sel-b stays in %s", c)
	}
}
