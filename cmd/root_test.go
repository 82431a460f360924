package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

type result struct {
	out, errOut string
	code        int
}

// execute runs fedctl in-process as a user would, with the federation file
// in a temporary directory unless FEDCTL_CONFIG is already set by the test.
func execute(t *testing.T, args ...string) result {
	t.Helper()
	if os.Getenv("FEDCTL_CONFIG") == "" {
		t.Setenv("FEDCTL_CONFIG", filepath.Join(t.TempDir(), "config.yaml"))
	}
	ios, _, out, errOut := iostreams.Test()
	root := NewRootCmd(ios, "fedctl")
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(context.Background())
	code := exitCode(ios, cmd, err)
	return result{out: out.String(), errOut: errOut.String(), code: code}
}

func TestExitCodes(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantErrOut string
	}{
		{"an unknown command is a usage error", []string{"frobnicate"}, ExitUsage, "error: unknown command \"frobnicate\" for \"fedctl\"\nSee 'fedctl --help' for usage.\n"},
		{"an unknown flag is a usage error", []string{"get", "clusters", "--bogus"}, ExitUsage, "error: unknown flag: --bogus\nSee 'fedctl get --help' for usage.\n"},
		{"a missing argument is a usage error", []string{"join"}, ExitUsage, "error: \"fedctl join\" needs NAME, got 0 argument(s)\nSee 'fedctl join --help' for usage.\n"},
		{"a bad flag value is a usage error", []string{"get", "clusters", "-o", "xml"}, ExitUsage, "error: --output must be one of wide, yaml, json, name, custom-columns=SPEC, custom-columns-file=FILE, or go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file=TEMPLATE; got \"xml\"\nSee 'fedctl get --help' for usage.\n"},
		{"an invalid --color is a usage error", []string{"get", "clusters", "--color", "pink"}, ExitUsage, "error: --color must be auto, always or never, got \"pink\"\nSee 'fedctl get --help' for usage.\n"},
		{"a runtime error exits 1", []string{"unjoin", "nope"}, ExitError, "error: cluster \"nope\" is not a member: the federation has no members yet; run \"fedctl join nope --cluster-context CONTEXT\"\n"},
		{"an empty federation lists nothing and exits 0", []string{"get", "clusters"}, ExitOK, ""},
		{"an unknown --dry-run is a usage error listing the values", []string{"disable", "jobs", "--dry-run=maybe"}, ExitUsage,
			"error: invalid --dry-run value \"maybe\": must be \"none\", \"client\" or \"server\"\nSee 'fedctl disable --help' for usage.\n"},
		{"--ignore-not-ready is for get clusters", []string{"get", "deployments", "--ignore-not-ready"}, ExitUsage,
			"error: --ignore-not-ready applies to \"get clusters\" only\nSee 'fedctl get --help' for usage.\n"},
		{"a bare --dry-run is client, with kubectl's deprecation warning", []string{"disable", "jobs", "--force", "--dry-run"}, ExitOK, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, tt.args...)
			assert.Equal(t, tt.wantCode, r.code)
			if tt.wantErrOut != "" {
				assert.Equal(t, tt.wantErrOut, r.errOut)
			}
		})
	}
}

func TestBrokenFederationFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: a\n  lables: {}\n"), 0o600))
	t.Setenv("FEDCTL_CONFIG", path)

	r := execute(t, "get", "clusters")
	assert.Equal(t, ExitError, r.code)
	assert.Equal(t, "error: "+path+":5: clusters[0]: unknown field \"lables\" (did you mean \"labels\"?)\n", r.errOut)

	// version and completion still work, so a broken file can be fixed
	// with a working shell.
	r = execute(t, "version")
	assert.Equal(t, ExitOK, r.code, r.errOut)
	r = execute(t, "completion", "bash")
	assert.Equal(t, ExitOK, r.code, r.errOut)
}

func TestConfigPathPrecedence(t *testing.T) {
	dir := t.TempDir()
	fromEnv := filepath.Join(dir, "env.yaml")
	fromFlag := filepath.Join(dir, "flag.yaml")
	for _, p := range []string{fromEnv, fromFlag} {
		require.NoError(t, os.WriteFile(p, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: "+filepath.Base(p[:len(p)-5])+"\n"), 0o600))
	}
	t.Setenv("FEDCTL_CONFIG", fromEnv)
	r := execute(t, "get", "clusters", "-o", "name")
	assert.Equal(t, "cluster/env\n", r.out)
	r = execute(t, "get", "clusters", "-o", "name", "--config", fromFlag)
	assert.Equal(t, "cluster/flag\n", r.out, "the flag beats FEDCTL_CONFIG")

	t.Setenv("FEDCTL_CONFIG", "")
	t.Setenv("XDG_CONFIG_HOME", dir)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "fedctl"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "fedctl", "config.yaml"), []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: xdg\n"), 0o600))
	ios, _, out, _ := iostreams.Test()
	root := NewRootCmd(ios, "fedctl")
	root.SetArgs([]string{"get", "clusters", "-o", "name"})
	require.NoError(t, root.Execute())
	assert.Equal(t, "cluster/xdg\n", out.String(), "the default is $XDG_CONFIG_HOME/fedctl/config.yaml")
}

func TestColorSettings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	t.Setenv("FEDCTL_CONFIG", path)
	write := func(color string) {
		require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\ndefaults: {color: "+color+"}\n"), 0o600))
	}
	colored := func(args ...string) bool {
		ios, _, _, errOut := iostreams.Test()
		root := NewRootCmd(ios, "fedctl")
		root.SetArgs(append([]string{"unjoin", "nope"}, args...))
		cmd, err := root.ExecuteContextC(context.Background())
		exitCode(ios, cmd, err)
		return bytes.Contains(errOut.Bytes(), []byte("\x1b["))
	}

	t.Setenv("NO_COLOR", "")
	write("auto")
	assert.False(t, colored(), "auto without a terminal has no colour")
	write("always")
	assert.True(t, colored(), "the federation file's default applies")
	t.Setenv("FEDCTL_COLOR", "never")
	assert.False(t, colored(), "FEDCTL_COLOR beats the file")
	assert.True(t, colored("--color", "always"), "the flag beats FEDCTL_COLOR")
	t.Setenv("NO_COLOR", "1")
	assert.False(t, colored("--color", "always"), "NO_COLOR turns colour off whatever else says")
}

// TestBareDryRun: a bare --dry-run means client, as in kubectl, which
// warns that the spelling is deprecated; nothing is written.
func TestBareDryRun(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	path := filepath.Join(t.TempDir(), "config.yaml")
	t.Setenv("FEDCTL_CONFIG", path)
	for _, args := range [][]string{{"--dry-run"}, {"--dry-run=true"}} {
		r := execute(t, append([]string{"disable", "jobs", "--force"}, args...)...)
		require.Equal(t, ExitOK, r.code, r.errOut)
		assert.True(t, strings.HasPrefix(r.errOut, "warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n"), r.errOut)
		assert.Contains(t, r.errOut, "would be disabled")
		_, err := os.Stat(path)
		assert.True(t, os.IsNotExist(err), "a dry run writes no federation file")
	}
	for _, args := range [][]string{{"--dry-run=client"}, {"--dry-run=server"}} {
		r := execute(t, append([]string{"disable", "jobs", "--force"}, args...)...)
		require.Equal(t, ExitOK, r.code, r.errOut)
		assert.NotContains(t, r.errOut, "deprecated")
		assert.Contains(t, r.errOut, "would be disabled", "server means client for a command that only writes the federation file")
		_, err := os.Stat(path)
		assert.True(t, os.IsNotExist(err), "a dry run writes no federation file")
	}
}

// TestExitCodeOfErrors maps the errors commands return to the exit codes
// the README promises: a wait that timed out is 4, and 3 wins over it.
func TestExitCodeOfErrors(t *testing.T) {
	timeout := &cmdutil.TimeoutError{Err: errors.New("timed out waiting: 1 member object not Current")}
	partial := &cmdutil.PartialError{Failed: []string{"c2"}}
	for _, tt := range []struct {
		name string
		err  error
		want int
	}{
		{"a wait that timed out", timeout, ExitTimeout},
		{"a wrapped timeout", fmt.Errorf("apply: %w", timeout), ExitTimeout},
		{"members failed and the wait timed out", errors.Join(partial, timeout), ExitPartial},
		{"members failed", partial, ExitPartial},
		{"an error", errors.New("boom"), ExitError},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ios, _, _, errOut := iostreams.Test()
			assert.Equal(t, tt.want, exitCode(ios, nil, tt.err))
			assert.True(t, strings.HasPrefix(errOut.String(), "error: "), errOut.String())
		})
	}
	assert.Equal(t, 4, ExitTimeout, "the README and --help of apply and status say 4")
}

func TestKubectlPluginName(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	root := NewRootCmd(ios, "/usr/local/bin/kubectl-fed")
	root.SetArgs([]string{"--help"})
	require.NoError(t, root.Execute())
	assert.Contains(t, out.String(), "kubectl fed [command]")
}

// TestCompletionsAreCurrent fails when completions/ no longer matches what
// "fedctl completion SHELL" prints; run "make completions".
func TestCompletionsAreCurrent(t *testing.T) {
	for shell, file := range map[string]string{
		"bash":       "fedctl.bash",
		"zsh":        "fedctl.zsh",
		"fish":       "fedctl.fish",
		"powershell": "fedctl.ps1",
	} {
		t.Run(shell, func(t *testing.T) {
			r := execute(t, "completion", shell)
			require.Equal(t, ExitOK, r.code, r.errOut)
			require.NotEmpty(t, r.out)
			want, err := os.ReadFile(filepath.Join("..", "completions", file))
			require.NoError(t, err, "run \"make completions\"")
			assert.True(t, string(want) == r.out, "completions/%s is stale; run \"make completions\"", file)
		})
	}
}

func TestClusterNameCompletion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters:\n- name: eu-1\n- name: eu-2\n- name: us-1\n"), 0o600))
	t.Setenv("FEDCTL_CONFIG", path)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"unjoin", ""}, "eu-1\neu-2\nus-1\n"},
		{[]string{"unjoin", "eu"}, "eu-1\neu-2\n"},
		{[]string{"label", "cluster", "u"}, "us-1\n"},
		{[]string{"get", "clusters", "eu-1", ""}, "eu-2\nus-1\n"},
		{[]string{"get", "cl"}, "clusters\nclusterroles.rbac.authorization.k8s.io\n"},
		{[]string{"get", "dep"}, "deployments.apps\n"},
		{[]string{"status", "federatedse"}, "federatedsecrets\nfederatedserviceaccounts\nfederatedservices\n"},
		{[]string{"disable", "job"}, "jobs.batch\n"},
	}
	for _, tt := range tests {
		r := execute(t, append([]string{"__complete"}, tt.args...)...)
		require.Equal(t, ExitOK, r.code, r.errOut)
		assert.Equal(t, tt.want+":4\n", r.out, "completing %q", tt.args)
	}
}

// TestContextCompletion: join and enable --cluster-context complete the contexts of
// the kubeconfig, offline.
func TestContextCompletion(t *testing.T) {
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {}}]
contexts:
- {name: kind-eu-1, context: {cluster: c, user: u}}
- {name: kind-us-1, context: {cluster: c, user: u}}
- {name: prod, context: {cluster: c, user: u}}
`), 0o600))
	t.Setenv("KUBECONFIG", kubeconfig)
	t.Setenv("FEDCTL_CONFIG", filepath.Join(dir, "config.yaml"))
	r := execute(t, "__complete", "join", "eu-1", "--cluster-context", "kind")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Equal(t, "kind-eu-1\nkind-us-1\n:4\n", r.out)
	r = execute(t, "__complete", "join", "eu-1", "--cluster-context", "")
	assert.Equal(t, "kind-eu-1\nkind-us-1\nprod\n:4\n", r.out)
	r = execute(t, "__complete", "enable", "sts", "--cluster-context", "p")
	assert.Equal(t, "prod\n:4\n", r.out, "enable's --cluster-context too")
}

// TestCompletionGivesUpQuickly: a member that accepts connections and
// never answers costs a completion cmdutil.CompletionTimeout, not client-go's
// default timeout, and offers nothing.
func TestCompletionGivesUpQuickly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	var held []net.Conn
	var mu sync.Mutex
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c) // never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	dir := t.TempDir()
	kubeconfig := filepath.Join(dir, "kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://`+l.Addr().String()+`", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: slow, context: {cluster: c, user: u}}]
`), 0o600))
	t.Setenv("KUBECONFIG", kubeconfig)
	config := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(config, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: slow}]\n"), 0o600))
	t.Setenv("FEDCTL_CONFIG", config)
	for _, args := range [][]string{{"get", "configmaps", "-n", ""}, {"get", "configmaps", ""}, {"enable", ""}} {
		start := time.Now()
		r := execute(t, append([]string{"__complete"}, args...)...)
		took := time.Since(start)
		require.Equal(t, ExitOK, r.code, r.errOut)
		assert.Equal(t, ":4\n", r.out, "%v offers nothing", args)
		assert.Less(t, took, cmdutil.CompletionTimeout+2*time.Second, "%v gives up after the completion timeout", args)
	}
}

func TestVersion(t *testing.T) {
	r := execute(t, "version", "-o", "json")
	require.Equal(t, ExitOK, r.code, r.errOut)
	assert.Contains(t, r.out, `"version": "dev"`)
	assert.Contains(t, r.out, `"platform": "`)
	r = execute(t, "version")
	assert.Regexp(t, `^fedctl dev \(commit \S+, built \S+, go\S+ \S+/\S+\)\n$`, r.out)
	r = execute(t, "version", "-o", "table")
	assert.Equal(t, ExitUsage, r.code)
}
