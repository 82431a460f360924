package members

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandaloneKubeconfig: a member's kubeconfig stands alone: its context
// is named after the member whatever it is called in the member's own
// file, the files it names are inlined, and --as is exactly the flags.
func TestStandaloneKubeconfig(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ca.crt"), []byte("CA DATA"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte("secret-token"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "eu.yaml"), []byte(`apiVersion: v1
kind: Config
clusters:
- name: k
  cluster: {server: "https://eu.example:6443", certificate-authority: ca.crt}
users:
- name: admin
  user: {tokenFile: token, as-groups: [system:masters]}
contexts:
- name: kubernetes-admin@kubernetes
  context: {cluster: k, user: admin, namespace: shop}
`), 0o600))
	a := Access{BaseDir: dir, Impersonate: Impersonation{User: "deployer"}}
	m := Member{Name: "eu-1", Kubeconfig: "eu.yaml", Context: "kubernetes-admin@kubernetes"}
	cfg, err := a.StandaloneKubeconfig(m)
	require.NoError(t, err)
	assert.Equal(t, "eu-1", cfg.CurrentContext)
	require.Len(t, cfg.Contexts, 1)
	ctx := cfg.Contexts["eu-1"]
	require.NotNil(t, ctx)
	assert.Equal(t, "shop", ctx.Namespace)
	assert.Equal(t, "https://eu.example:6443", cfg.Clusters[ctx.Cluster].Server)
	assert.Equal(t, []byte("CA DATA"), cfg.Clusters[ctx.Cluster].CertificateAuthorityData, "the CA file is inlined")
	assert.Empty(t, cfg.Clusters[ctx.Cluster].CertificateAuthority)
	user := cfg.AuthInfos[ctx.AuthInfo]
	assert.Equal(t, "deployer", user.Impersonate)
	assert.Empty(t, user.ImpersonateGroups, "--as alone: the file's as-groups are not kept")
	assert.True(t, filepath.IsAbs(user.TokenFile), "a file left by name is named by its absolute path: %s", user.TokenFile)

	_, err = a.StandaloneKubeconfig(Member{Name: "gone", Kubeconfig: "eu.yaml", Context: "nope"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kubernetes-admin@kubernetes", "the error lists the contexts there are")
}
