package cmd

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestImpersonation: --as, --as-group (and FEDCTL_AS) act as another user
// in every member, as kubectl's flags do, so RBAC decides with that user's
// rights.
func TestImpersonation(t *testing.T) {
	e := testenv.Require(t, env)
	t.Setenv("KUBECONFIG", e.Kubeconfig)
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	config := filepath.Join(dir, "federation.yaml")
	// cluster1 only: the unjoin tests count what fedctl left in the others
	require.NoError(t, os.WriteFile(config, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: cluster1\n"), 0o600))
	t.Setenv("FEDCTL_CONFIG", config)
	manifests := filepath.Join(dir, "app.yaml")
	require.NoError(t, os.WriteFile(manifests, []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: impersonated, namespace: impersonated}
spec:
  placement: {clusterSelector: {}}
`), 0o600))

	r := execute(t, "apply", "-f", manifests, "--as", "nobody")
	assert.Equal(t, ExitError, r.code, "the member refused: %s", r.errOut)
	assert.Contains(t, r.errOut, `User "nobody" cannot`)

	t.Setenv("FEDCTL_AS", "nobody")
	r = execute(t, "apply", "-f", manifests)
	assert.Equal(t, ExitError, r.code, "FEDCTL_AS as --as: %s", r.errOut)
	assert.Contains(t, r.errOut, `User "nobody" cannot`)

	r = execute(t, "apply", "-f", manifests, "--as-group", "system:masters")
	assert.Equal(t, 0, r.code, "nobody in system:masters may: %s", r.errOut)
	assert.Contains(t, r.errOut, "✓ cluster cluster1: 1 created")

	// Groups without a user: every API server refuses them (with a 500,
	// which would be retried until --timeout); a usage error instead.
	t.Setenv("FEDCTL_AS", "")
	r = execute(t, "apply", "-f", manifests, "--as-group", "system:masters")
	assert.Equal(t, ExitUsage, r.code, r.errOut)
	assert.Contains(t, r.errOut, "--as-group and --as-uid need --as: the user to impersonate")
}
