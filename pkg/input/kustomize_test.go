package input_test

import (
	"bytes"
	"context"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/input"
)

// The tests of this file are not parallel: a build swaps os.Stderr and
// the standard logger, which they watch.

// writeFiles writes files (path relative to dir: content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
}

// rawOutput points os.Stderr and the standard logger at a file and a
// buffer of the test's for its duration, and returns what reached them.
func rawOutput(t *testing.T) func() string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	var logged bytes.Buffer
	stderr, logOut, logFlags := os.Stderr, log.Writer(), log.Flags()
	os.Stderr = f
	log.SetOutput(&logged)
	t.Cleanup(func() {
		os.Stderr = stderr
		log.SetOutput(logOut)
		log.SetFlags(logFlags)
		_ = f.Close()
	})
	return func() string {
		assert.Same(t, f, os.Stderr, "os.Stderr is put back")
		assert.Same(t, &logged, log.Writer(), "the logger's output is put back")
		assert.Equal(t, log.LstdFlags, log.Flags(), "and its flags")
		data, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return string(data) + logged.String()
	}
}

// TestKustomizeWarnings: kustomize's deprecation notices (which it prints
// with fmt.Fprintf(os.Stderr)) and its other warnings (log.Printf) become
// fedctl's warnings on Options.Warnings, in kustomize's order, each naming
// the kustomization that has the field; nothing reaches the process's
// stderr or the standard logger as kustomize wrote it (issue 11).
func TestKustomizeWarnings(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"base/kustomization.yaml": "resources: [cm.yaml]\ncommonLabels: {tier: base}\n",
		"base/cm.yaml":            configMap,
		"prod/kustomization.yaml": `bases: [../base]
commonLabels: {stage: prod}
patchesStrategicMerge: [patch.yaml]
vars:
- name: WEB
  objref: {apiVersion: types.kubefed.io/v1beta1, kind: FederatedConfigMap, name: web}
`,
		"prod/patch.yaml": "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata:\n  name: web\n  annotations: {patched: \"yes\"}\n",
	})
	prod := filepath.Join(dir, "prod")
	raw := rawOutput(t)
	var warnings bytes.Buffer
	docs, err := input.Read(context.Background(), input.Options{Kustomize: prod, Warnings: &warnings})
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Contains(t, string(docs[0].Data)+string(docs[1].Data), "patched: \"yes\"", "the build is what it was")
	for _, d := range docs {
		assert.Equal(t, prod, d.Kustomization, "each document says which kustomization built it")
	}
	const fix = " Run 'kustomize edit fix' to update your Kustomization automatically.\n"
	assert.Equal(t,
		"warning: kustomization "+prod+": 'bases' is deprecated. Please use 'resources' instead."+fix+
			"warning: kustomization "+prod+": 'commonLabels' is deprecated. Please use 'labels' instead."+fix+
			"warning: kustomization "+prod+": 'patchesStrategicMerge' is deprecated. Please use 'patches' instead."+fix+
			"warning: kustomization "+prod+": 'vars' is deprecated. Please use 'replacements' instead. [EXPERIMENTAL]"+fix+
			"warning: kustomization "+filepath.Join(dir, "base")+": 'commonLabels' is deprecated. Please use 'labels' instead."+fix+
			"warning: kustomization "+prod+": well-defined vars that were never replaced: WEB\n",
		warnings.String())
	assert.Empty(t, raw(), "nothing raw")

	// without a writer the warnings are dropped, and still not raw
	_, err = input.Read(context.Background(), input.Options{Kustomize: prod})
	require.NoError(t, err)
	assert.Empty(t, raw())
}

// TestKustomizeRelativeDirs: the kustomizations of the warnings are named
// from -k's directory as given, as the origins of the documents are.
func TestKustomizeRelativeDirs(t *testing.T) {
	raw := rawOutput(t)
	var warnings bytes.Buffer
	_, err := input.Read(context.Background(), input.Options{Kustomize: "../../testdata/kustomize/prod", Warnings: &warnings})
	require.NoError(t, err)
	assert.Equal(t, "warning: kustomization ../../testdata/kustomize/prod: 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n", warnings.String())
	assert.Empty(t, raw())
}

// TestKustomizeInterrupted: krusty takes no context, yet a build that
// hangs (here a remote resource whose server never answers, which
// kustomize fetches with no timeout) ends when ctx does, with ctx's error,
// at once (issue 11: -k could not be interrupted with Ctrl-C). The build
// left behind gives os.Stderr back when it ends.
func TestKustomizeInterrupted(t *testing.T) {
	raw := rawOutput(t)
	requested, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(requested)
		select {
		case <-release:
			_, _ = w.Write([]byte(configMap))
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	// an unused var: kustomize logs it at the end of the build
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [" + srv.URL + "/cm.yaml]\n" +
		"vars: [{name: WEB, objref: {apiVersion: types.kubefed.io/v1beta1, kind: FederatedConfigMap, name: web}}]\n"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-requested
		time.Sleep(100 * time.Millisecond) // well inside the fetch
		cancel()
	}()
	start := time.Now()
	var warnings bytes.Buffer
	_, err := input.Read(ctx, input.Options{Kustomize: dir, Warnings: &warnings})
	took := time.Since(start)
	t.Logf("returned %s after the fetch began", took.Round(time.Millisecond))
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "-k "+dir+": context canceled")
	assert.Less(t, took, 2*time.Second)

	// the build goes on until its fetch ends, and the next build waits
	// for it to give os.Stderr back; what it printed after the caller
	// returned is dropped
	close(release)
	other := t.TempDir()
	writeFiles(t, other, map[string]string{"kustomization.yaml": "resources: [cm.yaml]\n", "cm.yaml": configMap})
	_, err = input.Read(context.Background(), input.Options{Kustomize: other})
	require.NoError(t, err)
	assert.Empty(t, raw())
	assert.NotContains(t, warnings.String(), "never replaced", "nothing written to the caller's writer after it returned")
}

// TestKustomizeCancelledBefore: a context already ended builds nothing.
func TestKustomizeCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := input.Read(ctx, input.Options{Kustomize: "../../testdata/kustomize/prod"})
	require.ErrorIs(t, err, context.Canceled)
}
