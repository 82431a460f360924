package members_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
)

const twoContexts = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: u
  user: {token: secret-token}
contexts:
- name: ctx-b
  context: {cluster: c, user: u}
- name: ctx-a
  context: {cluster: c, user: u}
current-context: ctx-a
`

func TestRESTConfig(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(twoContexts), 0o600))
	t.Setenv("KUBECONFIG", filepath.Join(dir, "not-used"))

	a := members.Access{Kubeconfig: kubeconfig, BaseDir: dir}
	cfg, err := a.RESTConfig(members.Member{Name: "x", Context: "ctx-b"})
	require.NoError(t, err)
	assert.Equal(t, "https://127.0.0.1:1", cfg.Host)

	_, err = a.RESTConfig(members.Member{Name: "x", Context: "nope"})
	require.EqualError(t, err, `cluster x: context "nope" in kubeconfig `+kubeconfig+`: not found; available contexts: ctx-a, ctx-b`)
	assert.NotContains(t, err.Error(), "secret-token")

	// A member's own kubeconfig wins over --kubeconfig and is relative to
	// the federation file's directory.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "kube"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kube", "own"), []byte(twoContexts), 0o600))
	m := members.Member{Name: "y", Context: "ctx-a", Kubeconfig: "kube/own"}
	assert.Equal(t, filepath.Join(dir, "kube", "own"), a.KubeconfigPath(m))
	_, err = a.RESTConfig(m)
	require.NoError(t, err)

	_, err = a.RESTConfig(members.Member{Name: "z", Kubeconfig: "missing"})
	require.ErrorContains(t, err, `cluster z: context "z" in kubeconfig `+filepath.Join(dir, "missing"))

	// Without --kubeconfig the standard loading rules apply.
	t.Setenv("KUBECONFIG", kubeconfig)
	_, err = members.Access{}.RESTConfig(members.Member{Name: "w"})
	require.EqualError(t, err, `cluster w: context "w" in KUBECONFIG=`+kubeconfig+`: not found; available contexts: ctx-a, ctx-b`)
}

// TestRESTConfigImpersonates: --as, --as-group and --as-uid replace the
// kubeconfig user's own impersonation whole: a group or extra the user
// impersonates does not stay with --as (kubectl keeps them).
func TestRESTConfigImpersonates(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	impersonating := strings.Replace(twoContexts, "user: {token: secret-token}", `user: {token: secret-token, as: admin, as-groups: ["system:masters"], as-uid: "0", as-user-extra: {scopes: [all]}}`, 1)
	require.NotEqual(t, twoContexts, impersonating)
	require.NoError(t, os.WriteFile(kubeconfig, []byte(impersonating), 0o600))
	m := members.Member{Name: "x", Context: "ctx-a"}
	cfg, err := members.Access{Kubeconfig: kubeconfig}.RESTConfig(m)
	require.NoError(t, err)
	assert.Equal(t, "admin", cfg.Impersonate.UserName, "no flag: the kubeconfig's own impersonation")
	assert.Equal(t, []string{"system:masters"}, cfg.Impersonate.Groups)

	a := members.Access{Kubeconfig: kubeconfig, Impersonate: members.Impersonation{User: "jane", Groups: []string{"devs", "ops"}, UID: "42"}}
	cfg, err = a.RESTConfig(m)
	require.NoError(t, err)
	assert.Equal(t, "jane", cfg.Impersonate.UserName)
	assert.Equal(t, []string{"devs", "ops"}, cfg.Impersonate.Groups)
	assert.Equal(t, "42", cfg.Impersonate.UID)
	assert.Empty(t, cfg.Impersonate.Extra)

	cfg, err = members.Access{Kubeconfig: kubeconfig, Impersonate: members.Impersonation{User: "ci-bot"}}.RESTConfig(m)
	require.NoError(t, err)
	assert.Equal(t, "ci-bot", cfg.Impersonate.UserName)
	assert.Empty(t, cfg.Impersonate.Groups, "--as alone: the kubeconfig's system:masters does not stay")
	assert.Empty(t, cfg.Impersonate.UID)
	assert.Empty(t, cfg.Impersonate.Extra)
	assert.Equal(t, "secret-token", cfg.BearerToken, "the user's own credentials still authenticate")
}

// TestContextFile: the kubeconfig file that holds a member's context, for
// commands another tool runs: the member's own, else the first file of
// KUBECONFIG that defines the context.
func TestContextFile(t *testing.T) {
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
	require.NoError(t, os.WriteFile(first, []byte(twoContexts), 0o600))
	require.NoError(t, os.WriteFile(second, []byte(strings.ReplaceAll(twoContexts, "ctx-a", "ctx-c")), 0o600))
	t.Setenv("KUBECONFIG", first+string(os.PathListSeparator)+second)
	assert.Equal(t, second, members.Access{}.ContextFile(members.Member{Name: "m", Context: "ctx-c"}))
	assert.Equal(t, first, members.Access{}.ContextFile(members.Member{Name: "m", Context: "ctx-b"}), "the first that defines it")
	assert.Empty(t, members.Access{}.ContextFile(members.Member{Name: "m", Context: "nowhere"}))
	assert.Equal(t, "/k/own.yaml", members.Access{}.ContextFile(members.Member{Name: "m", Kubeconfig: "/k/own.yaml"}))

	// A context whose user is in another file: no file works alone.
	split := filepath.Join(dir, "split")
	require.NoError(t, os.WriteFile(split, []byte(`apiVersion: v1
kind: Config
contexts:
- name: ctx-d
  context: {cluster: c, user: u}
`), 0o600))
	t.Setenv("KUBECONFIG", split+string(os.PathListSeparator)+first)
	assert.Empty(t, members.Access{}.ContextFile(members.Member{Name: "m", Context: "ctx-d"}))
}

// TestServerPasswordIsNotPrinted: a server URL with a password in it
// (which client-go sends as basic auth) is printed with the password
// redacted, by get clusters' message and join's errors alike.
func TestServerPasswordIsNotPrinted(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(strings.Replace(twoContexts, "https://127.0.0.1:1", "https://admin:s3cret@127.0.0.1:1", 1)), 0o600))
	a := members.Access{Kubeconfig: kubeconfig, BaseDir: dir, Timeout: 2 * time.Second}
	m := members.Member{Name: "x", Context: "ctx-a"}
	h := members.Probe(context.Background(), a, m)
	require.NotEmpty(t, h.Conditions)
	msg := h.Conditions[0].Message
	assert.Contains(t, msg, "https://admin:xxxxx@127.0.0.1:1", "the server is named")
	assert.NotContains(t, msg, "s3cret")
	_, err := members.Verify(context.Background(), a, m)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "s3cret")
}
