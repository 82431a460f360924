package federate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

// TestFederateLiveTimeout: a member that takes the connection and never
// answers does not hold federate TYPE NAME: --timeout ends it, and the
// error says so.
func TestFederateLiveTimeout(t *testing.T) {
	silent := testutil.SilentServer(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "https://%s", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: silent
  context: {cluster: silent, user: u}
current-context: silent
`, silent)), 0o600))
	fed := members.New()
	require.NoError(t, fed.Put(members.Member{Name: "silent"}, false))
	ios, _, _, _ := iostreams.Test()
	f := &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "f.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: kubeconfig}, nil },
	}
	cmd := NewCmdFederate(f, nil)
	cmd.SetArgs([]string{"deployments", "web", "-n", "shop", "--timeout", "500ms"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not read within --timeout 500ms")

	cmd = NewCmdFederate(f, nil)
	cmd.SetArgs([]string{"deployments", "web", "--timeout", "0s"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	assert.EqualError(t, cmd.ExecuteContext(context.Background()), "--timeout must be positive, got 0s")
}
