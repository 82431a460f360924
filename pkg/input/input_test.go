package input_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/fedctl/fedctl/pkg/input"
)

const configMap = `apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: web
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: api
`

// server serves the paths of a test: /ok, /missing (404), /slow (answers
// after the client gave up), /big (more than the limit).
func server(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(configMap)) })
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(strings.Repeat("#\n", 1024))) })
	srv := httptest.NewServer(mux) // loopback only
	t.Cleanup(func() { close(release); srv.Close() })
	return srv
}

func TestReadURL(t *testing.T) {
	t.Parallel()
	srv := server(t)
	for _, tt := range []struct {
		name    string
		path    string
		wantErr string
	}{
		{name: "documents named by the URL", path: "/ok"},
		{name: "a status other than 2xx names URL and status", path: "/missing", wantErr: srv.URL + "/missing: the server answered 404 Not Found"},
		{name: "a slow server meets the timeout", path: "/slow", wantErr: srv.URL + "/slow: no complete answer within 200ms"},
		{name: "a body over the limit", path: "/big", wantErr: srv.URL + "/big: larger than 1000 bytes, the most fedctl reads from a URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url := srv.URL + tt.path
			start := time.Now()
			docs, err := input.Read(context.Background(), input.Options{Filenames: []string{url}, URLTimeout: 200 * time.Millisecond, MaxURLBytes: 1000})
			assert.Less(t, time.Since(start), 5*time.Second)
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Len(t, docs, 2)
			assert.Equal(t, url, docs[0].File)
			assert.Equal(t, []int{1, 6}, []int{docs[0].Line, docs[1].Line})
		})
	}
}

// TestReadURLInterrupted: Ctrl-C (the command's context) stops a fetch at
// once, whatever the timeout.
func TestReadURLInterrupted(t *testing.T) {
	t.Parallel()
	srv := server(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := input.Read(ctx, input.Options{Filenames: []string{srv.URL + "/slow"}})
	assert.EqualError(t, err, srv.URL+"/slow: interrupted")
	assert.Less(t, time.Since(start), 5*time.Second, "not the 30 s default timeout")
}

// TestReadMixesURLsFilesAndStdin: URLs keep their place among the other
// -f arguments, and every problem is reported.
func TestReadMixesURLsFilesAndStdin(t *testing.T) {
	t.Parallel()
	srv := server(t)
	docs, err := input.Read(context.Background(), input.Options{
		Filenames: []string{"-", srv.URL + "/ok", srv.URL + "/missing", "ftp://example.com/x.yaml"},
		Stdin:     strings.NewReader("a: 1\n"),
	})
	require.Error(t, err)
	assert.Equal(t, []string{
		srv.URL + "/missing: the server answered 404 Not Found",
		"ftp://example.com/x.yaml: only http:// and https:// URLs are read; download the file first",
	}, strings.Split(err.Error(), "\n"))
	var files []string
	for _, d := range docs {
		files = append(files, d.File)
	}
	assert.Equal(t, []string{"STDIN", srv.URL + "/ok", srv.URL + "/ok"}, files)
}

func TestReadFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		opts    input.Options
		wantErr string
	}{
		{"nothing", input.Options{}, "no manifests given: use -f FILE, -f DIR, -f URL, -f - or -k DIR"},
		{"-f and -k", input.Options{Filenames: []string{"a.yaml"}, Kustomize: "dir"}, "-f and -k cannot be used together"},
		{"-k of a directory without kustomization", input.Options{Kustomize: "testdata"}, "-k testdata: unable to find one of 'kustomization.yaml', 'kustomization.yml' or 'Kustomization' in directory '"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := input.Read(context.Background(), tt.opts)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tt.wantErr), "%q starts with %q", err, tt.wantErr)
		})
	}
}

// TestKustomize: -k builds the kustomization (here namePrefix, commonLabels
// and patches on federated objects, kinds kustomize does not know) and
// names the output's documents after the directory and the file each
// resource came from, at their line in the built stream (what "kubectl
// kustomize" prints: the origin annotations fedctl asked for are gone).
//
// Not parallel: it runs krusty itself, which prints to os.Stderr while
// Read swaps it (see kustomize_test.go).
func TestKustomize(t *testing.T) {
	dir := "../../testdata/kustomize/prod"
	docs, err := input.Read(context.Background(), input.Options{Kustomize: dir})
	require.NoError(t, err)
	type doc struct {
		File string
		Line int
	}
	var got []doc
	for _, d := range docs {
		got = append(got, doc{d.File, d.Line})
	}
	of := func(file string) string { return dir + " (kustomize output of ../../testdata/kustomize/" + file + ")" }
	assert.Equal(t, []doc{
		{of("namespace/00-namespace.yaml"), 1},
		{of("base/10-configmap.yaml"), 12},
		{of("base/20-deployment.yaml"), 38},
		{of("base/20-deployment.yaml"), 78},
	}, got)
	all := string(docs[0].Data)
	for _, d := range docs[1:] {
		all += "---\n" + string(d.Data)
	}
	for _, want := range []string{
		"name: prod-web-config",               // namePrefix
		"name: prod-web\n",                    // on the FederatedDeployment and its RSP
		"stage: prod",                         // commonLabels
		"image: nginx:1.28",                   // a JSON patch into the template
		"totalReplicas: 9",                    // a JSON patch of the RSP
		"kind: FederatedNamespace\nmetadata:", // kept
	} {
		assert.Contains(t, all, want)
	}
	assert.NotContains(t, all, "prod-shop", "the FederatedNamespace is outside the prefixed part")
	assert.NotContains(t, all, "config.kubernetes.io/origin")

	// the stream is kustomize's own output, byte for byte, so the lines
	// are those of "kubectl kustomize DIR"
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	require.NoError(t, err)
	want, err := m.AsYaml()
	require.NoError(t, err)
	assert.Equal(t, string(want), all)
	lines := strings.Split(all, "\n")
	for _, d := range got {
		assert.True(t, strings.HasPrefix(lines[d.Line-1], "apiVersion: "), "line %d starts a document", d.Line)
	}
}

// TestKustomizeKeepsOriginAnnotationsAskedFor: a kustomization that asks
// for origin annotations itself gets them, as from kubectl kustomize.
func TestKustomizeKeepsOriginAnnotationsAskedFor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: [cm.yaml]\nbuildMetadata: [originAnnotations]\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cm.yaml"), []byte(configMap), 0o600))
	docs, err := input.Read(context.Background(), input.Options{Kustomize: dir})
	require.NoError(t, err)
	require.Len(t, docs, 2)
	for _, d := range docs {
		assert.Contains(t, string(d.Data), "config.kubernetes.io/origin: |\n      path: cm.yaml")
		assert.Equal(t, dir+" (kustomize output of "+filepath.Join(dir, "cm.yaml")+")", d.File)
	}
}
