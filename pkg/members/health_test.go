package members_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

// TestProbeAllGivesEachMemberItsTime: with one probe at a time, a member
// that waits behind one that never answers still gets its whole time
// (get clusters --timeout is per member), and answers Ready.
func TestProbeAllGivesEachMemberItsTime(t *testing.T) {
	silent := testutil.SilentServer(t)
	healthy := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/healthz":
			fmt.Fprint(w, "ok")
		case "/version":
			fmt.Fprint(w, `{"gitVersion": "v1.33.0"}`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(healthy.Close)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: silent
  cluster: {server: "https://%s", insecure-skip-tls-verify: true}
- name: healthy
  cluster: {server: "%s", insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: t}
contexts:
- name: silent
  context: {cluster: silent, user: u}
- name: healthy
  context: {cluster: healthy, user: u}
current-context: silent
`, silent, healthy.URL)), 0o600))

	each := 500 * time.Millisecond
	a := members.Access{Kubeconfig: kubeconfig, Timeout: each}
	health := members.ProbeAll(context.Background(), a, []members.Member{{Name: "silent"}, {Name: "healthy"}}, 1, each)
	require.Len(t, health, 2)
	assert.False(t, health[0].Ready(), "the silent member is not ready")
	assert.True(t, health[1].Ready(), "the member probed after it had its own time: %s", health[1].Message())
	assert.Equal(t, "v1.33.0", health[1].KubernetesVersion)

	// a member whose turn comes after the command's time is over is not
	// probed (Ctrl-C stops the queue) and says so
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	health = members.ProbeAll(ctx, a, []members.Member{{Name: "silent"}, {Name: "healthy"}}, 1, each)
	for _, h := range health {
		assert.False(t, h.Ready())
		assert.Equal(t, "not probed: context canceled", h.Message())
	}
}
