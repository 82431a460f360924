package examples

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// stepTimeout bounds one step, so that a --wait that never ends fails the
// test instead of hanging it for the example's 10 minutes.
const stepTimeout = 2 * time.Minute

// result is what one command line did.
type result struct {
	out, errOut string
	code        int
}

// workspace is where the examples run, as a user's shell would: the
// working directory and HOME, with the kubeconfigs, the federation file
// (the default one, $HOME/.config/fedctl/config.yaml) and the files the
// examples name.
type workspace struct {
	dir string
	env []string // every command's environment
	e   *testenv.Env

	// urlEnv reaches https://example.com through a local proxy and
	// server (see serveExampleCom); fetched counts what it served.
	urlEnv  []string
	fetched *atomic.Int32

	// colordiffLog is where the colordiff stand-in writes its arguments,
	// "" when the machine has colordiff itself.
	colordiffLog string
}

// TestHelpExamples runs every --help example and every README command,
// in the order of steps, against three live clusters, through the built
// fedctl and bash, and checks each one's exit code and output.
// FEDCTL_EXAMPLES_LOG=1 logs every command's output, not only a failing
// one's.
func TestHelpExamples(t *testing.T) {
	e := testenv.Require(t, env)
	start := time.Now()
	w := newWorkspace(t, e)
	examples := helpExamples(t)
	readme := readmeCommands(t)
	ran := map[string]bool{}
	for _, s := range steps {
		name := s.line
		if name == "" {
			name = "setup: " + s.name
		}
		ok := t.Run(name, func(t *testing.T) {
			if s.setup != nil {
				s.setup(t, w)
				return
			}
			r := w.runStep(t, s)
			ran[s.line] = true
			assert.Equal(t, s.code, r.code, "exit code")
			for _, want := range s.out {
				assert.Contains(t, r.out, want, "stdout")
			}
			for _, want := range s.errOut {
				assert.Contains(t, r.errOut, want, "stderr")
			}
			if s.check != nil {
				s.check(t, w, r)
			}
			if t.Failed() || os.Getenv("FEDCTL_EXAMPLES_LOG") != "" {
				t.Logf("$ %s\nexit %d\nstdout:\n%s\nstderr:\n%s", s.line, r.code, r.out, r.errOut)
			}
		})
		if !ok && s.setup != nil {
			t.Fatalf("setup step %q failed: the examples after it would fail for that reason", s.name)
		}
	}
	var notRan []string
	nReadme := 0
	for _, l := range slices.Sorted(maps.Keys(examples)) {
		if !ran[l] {
			notRan = append(notRan, l)
		}
	}
	for _, l := range readme {
		if ran[l] {
			nReadme++
		}
	}
	t.Logf("ran %d of %d --help examples and %d of %d README commands (%d listed in notRun) in %s",
		len(examples)-len(notRan), len(examples), nReadme, len(readme), len(notRun), time.Since(start).Round(100*time.Millisecond))
	assert.Empty(t, notRan, "--help examples that did not run")
	assert.Equal(t, len(readme), nReadme+len(notRun), "every README command ran or is in notRun")
}

// runStep runs one step's line (or its stand-in, s.run) through bash in
// the workspace.
func (w *workspace) runStep(t *testing.T, s step) result {
	t.Helper()
	line := s.line
	if s.run != "" {
		line = s.run
	}
	var env []string
	if strings.Contains(line, "https://example.com/") {
		env = w.urlEnv
	}
	if left, path, ok := strings.Cut(line, " | jq "); ok {
		if _, err := exec.LookPath("jq"); err != nil {
			// No jq on this machine: run what comes before it and evaluate
			// the same path on its JSON here, so that the example is still
			// checked rather than skipped.
			r := w.sh(t, left, env)
			if r.code == 0 {
				r.out = jqPath(t, r.out, strings.Trim(path, "'"))
			}
			return r
		}
	}
	return w.sh(t, line, env)
}

// sh runs a command line with bash -o pipefail in the workspace.
func (w *workspace) sh(t *testing.T, line string, env []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", line)
	cmd.Dir = w.dir
	cmd.Env = append(slices.Clone(w.env), env...)
	cmd.WaitDelay = 5 * time.Second
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "%s: did not end within %s; stderr:\n%s", line, stepTimeout, errOut.String())
	code := 0
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		code = exitErr.ExitCode()
	} else {
		require.NoError(t, err, line)
	}
	return result{out: out.String(), errOut: errOut.String(), code: code}
}

// jqPath evaluates a jq path of fields and array indices, such as
// .objects[0].scheduling.plan, on a JSON document, and returns the value
// as jq prints it.
func jqPath(t *testing.T, doc, path string) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v), "the output is JSON")
	step := regexp.MustCompile(`^(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\])`)
	for rest := path; rest != "" && rest != "."; {
		m := step.FindStringSubmatch(rest)
		require.NotNil(t, m, "jq path %q: only .field and [n] are understood here", path)
		rest = rest[len(m[0]):]
		if m[1] != "" {
			obj, _ := v.(map[string]any)
			v = obj[m[1]]
			continue
		}
		i, _ := strconv.Atoi(m[2])
		arr, _ := v.([]any)
		if i >= len(arr) {
			v = nil
			continue
		}
		v = arr[i]
	}
	out, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	return string(out) + "\n"
}

// newWorkspace builds fedctl and prepares the workspace: kubeconfigs whose
// contexts have the names the examples use, the manifests and a kustomize
// overlay, a plain Deployment to federate, a CRD in eu-1's cluster, and
// https://example.com served locally.
func newWorkspace(t *testing.T, e *testenv.Env) *workspace {
	t.Helper()
	tools := t.TempDir()
	build := exec.Command("go", "build", "-tags", "kustomize_disable_go_plugin_support", "-o", filepath.Join(tools, "fedctl"), "../..")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run(), "build fedctl")
	kubectl, err := testenv.EnsureKubectl(context.Background(), os.Stderr)
	require.NoError(t, err)
	path := tools + string(os.PathListSeparator) + filepath.Dir(kubectl) + string(os.PathListSeparator) + os.Getenv("PATH")

	w := &workspace{dir: t.TempDir(), e: e}
	// Only what a user's shell would have: no KUBECONFIG, no FEDCTL_*, no
	// XDG_CONFIG_HOME; HOME is the workspace.
	w.env = []string{"PATH=" + path, "HOME=" + w.dir, "TMPDIR=" + os.TempDir(), "LANG=C.UTF-8"}

	if _, err := exec.LookPath("colordiff"); err != nil {
		// colordiff is diff with colours; a machine without it gets a
		// stand-in that records its arguments and runs diff, so that the
		// example still shows fedctl running the program it is given.
		w.colordiffLog = filepath.Join(tools, "colordiff.args")
		write(t, filepath.Join(tools, "colordiff"), fmt.Sprintf("#!/bin/sh\necho \"$*\" >> %q\nexec diff \"$@\"\n", w.colordiffLog))
		require.NoError(t, os.Chmod(filepath.Join(tools, "colordiff"), 0o755))
	}

	// ~/.kube/config: kind-eu-1 and eu-1 reach cluster1, eu-2 cluster3;
	// ~/.kube/us.yaml: us-1 reaches cluster2.
	writeKubeconfig(t, e, filepath.Join(w.dir, ".kube", "config"), map[string]string{"kind-eu-1": "cluster1", "eu-1": "cluster1", "eu-2": "cluster3"}, "eu-1")
	writeKubeconfig(t, e, filepath.Join(w.dir, ".kube", "us.yaml"), map[string]string{"us-1": "cluster2"}, "us-1")

	for name, doc := range manifests {
		write(t, filepath.Join(w.dir, "manifests", name), doc)
		write(t, filepath.Join(w.dir, "overlays", "base", name), doc)
		write(t, filepath.Join(w.dir, "app", name), doc) // README's "fedctl apply -f app/"
	}
	base := "resources:\n"
	for _, name := range slices.Sorted(maps.Keys(manifests)) {
		base += "- " + name + "\n"
	}
	write(t, filepath.Join(w.dir, "overlays", "base", "kustomization.yaml"), base)
	write(t, filepath.Join(w.dir, "overlays", "prod", "kustomization.yaml"), prodOverlay)
	write(t, filepath.Join(w.dir, "deploy.yaml"), plainDeployment)

	w.urlEnv, w.fetched = serveExampleCom(t, allManifests())
	return w
}

// allManifests is manifests/ as one stream, sorted by file name.
func allManifests() string {
	var docs []string
	for _, name := range slices.Sorted(maps.Keys(manifests)) {
		docs = append(docs, manifests[name])
	}
	return strings.Join(docs, "---\n")
}

// writeKubeconfig writes a kubeconfig whose contexts (keys) reach the test
// clusters (values) with their credentials.
func writeKubeconfig(t *testing.T, e *testenv.Env, path string, contexts map[string]string, current string) {
	t.Helper()
	src, err := clientcmd.LoadFromFile(e.Kubeconfig)
	require.NoError(t, err)
	cfg := clientcmdapi.NewConfig()
	for name, cluster := range contexts {
		c, ok := src.Contexts[cluster]
		require.True(t, ok, "the test kubeconfig has context %s", cluster)
		cfg.Contexts[name] = c.DeepCopy()
		cfg.Clusters[c.Cluster] = src.Clusters[c.Cluster].DeepCopy()
		cfg.AuthInfos[c.AuthInfo] = src.AuthInfos[c.AuthInfo].DeepCopy()
	}
	cfg.CurrentContext = current
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
}

// serveExampleCom serves body at https://example.com/shop/federated.yaml
// without the network: an HTTPS proxy on 127.0.0.1 tunnels CONNECT
// example.com:443, and nothing else, to a local TLS server whose
// certificate (httptest's) is valid for example.com. It returns the
// environment that makes fedctl use them, HTTPS_PROXY and SSL_CERT_FILE,
// so that the example runs as written, and a count of the files served.
func serveExampleCom(t *testing.T, body string) ([]string, *atomic.Int32) {
	t.Helper()
	fetched := &atomic.Int32{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Host != "example.com" || r.URL.Path != "/shop/federated.yaml" {
			http.NotFound(rw, r)
			return
		}
		fetched.Add(1)
		_, _ = io.WriteString(rw, body)
	}))
	t.Cleanup(srv.Close)
	proxy := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || r.Host != "example.com:443" {
			http.Error(rw, "this proxy reaches https://example.com only", http.StatusForbidden)
			return
		}
		upstream, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			http.Error(rw, err.Error(), http.StatusBadGateway)
			return
		}
		conn, buf, err := http.NewResponseController(rw).Hijack()
		if err != nil {
			_ = upstream.Close()
			return
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		go func() {
			_, _ = io.Copy(upstream, buf)
			_ = upstream.Close()
		}()
		_, _ = io.Copy(conn, bufio.NewReader(upstream))
		_ = conn.Close()
	}))
	t.Cleanup(proxy.Close)
	ca := filepath.Join(t.TempDir(), "example.com.pem")
	write(t, ca, string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})))
	return []string{"HTTPS_PROXY=" + proxy.URL, "SSL_CERT_FILE=" + ca}, fetched
}

func write(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// kubectl runs the test kubeconfig's kubectl against a test cluster, for
// what the examples take as given (a CRD) or what a check looks at.
func (w *workspace) kubectl(t *testing.T, cluster string, args ...string) result {
	t.Helper()
	line := "kubectl --kubeconfig " + w.e.Kubeconfig + " --context " + cluster + " " + strings.Join(args, " ")
	return w.sh(t, line, nil)
}
