package apply

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hangingServer accepts connections and never answers, like an API server
// that stopped responding; it reports the first connection.
func hangingServer(t *testing.T) (addr string, connected <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ch := make(chan struct{})
	var mu sync.Mutex
	var conns []net.Conn
	var once sync.Once
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			once.Do(func() { close(ch) })
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String(), ch
}

// TestApplyInterrupted: Ctrl-C (SIGINT) while a member does not answer
// ends fedctl apply at once, long before --timeout: the member is reported
// interrupted, the exit status is 1, and there is no panic or trace.
func TestApplyInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fedctl")
	}
	dir := t.TempDir()
	bin := fedctlBinary(t)

	addr, connected := hangingServer(t)
	kubeconfig := hangingKubeconfig(t, dir, "hang", addr)
	config := filepath.Join(dir, "federation.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: hang
  kubeconfig: %s
`, kubeconfig)), 0o600))
	manifests := t.TempDir()
	write(t, manifests, namespaceDoc("interrupted"))

	out, errOut := interrupt(t, exec.Command(bin, "--config", config, "apply", "-f", manifests, "--timeout", "2m"), connected)
	assert.Equal(t, "✗ cluster hang: interrupted\nerror: interrupted\n", errOut)
	assert.Empty(t, out)
}

// interrupt starts cmd, sends it SIGINT once it has connected (and a
// moment more, to be well inside the request), and checks that it stops
// at once, with exit status 1; it returns its standard output and error.
func interrupt(t *testing.T, cmd *exec.Cmd, connected <-chan struct{}) (string, string) {
	t.Helper()
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-connected:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("fedctl never reached the server; stderr:\n%s", errOut.String())
	}
	time.Sleep(200 * time.Millisecond) // well inside the request
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	var err error
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("fedctl did not stop on SIGINT; stderr:\n%s", errOut.String())
	}
	t.Logf("stopped %s after SIGINT; stderr:\n%s", time.Since(start).Round(time.Millisecond), errOut.String())
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr)
	assert.Equal(t, 1, exitErr.ExitCode())
	assert.Less(t, time.Since(start), 10*time.Second, "stopped at once, not at --timeout")
	return out.String(), errOut.String()
}

// hangingKubeconfig writes, in dir, a kubeconfig whose one context, name,
// reaches the server at addr with a token that is no credential.
func hangingKubeconfig(t *testing.T, dir, name, addr string) string {
	t.Helper()
	path := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: %[1]s
  cluster: {server: "http://%[2]s"}
users:
- name: %[1]s
  user: {token: not-a-real-token}
contexts:
- name: %[1]s
  context: {cluster: %[1]s, user: %[1]s}
current-context: %[1]s
`, name, addr)), 0o600))
	return path
}

// fedctlBinary builds fedctl for a test that runs it as a user would.
func fedctlBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fedctl")
	build := exec.Command("go", "build", "-o", bin, "../..")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// TestApplyInterruptedReadingAClusterAPISecret: Ctrl-C while the
// management cluster of a member from Cluster API does not answer the read
// of its kubeconfig Secret ends fedctl apply at once too, though that read
// is made while the member's client is built, outside any request.
func TestApplyInterruptedReadingAClusterAPISecret(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fedctl")
	}
	dir := t.TempDir()
	bin := fedctlBinary(t)

	addr, connected := hangingServer(t)
	kubeconfig := hangingKubeconfig(t, dir, "mgmt", addr)
	config := filepath.Join(dir, "federation.yaml")
	require.NoError(t, os.WriteFile(config, []byte(`apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
- name: web-1
  capi: {managementContext: mgmt, namespace: capi, cluster: web-1}
`), 0o600))
	manifests := t.TempDir()
	write(t, manifests, namespaceDoc("interrupted"))

	out, errOut := interrupt(t, exec.Command(bin, "--config", config, "--kubeconfig", kubeconfig, "apply", "-f", manifests, "--timeout", "2m"), connected)
	assert.Contains(t, errOut, "error: interrupted\n")
	assert.NotContains(t, errOut, "not-a-real-token")
	assert.Empty(t, out)
}
