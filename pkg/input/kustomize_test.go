package input_test

import (
	"context"
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

// writeFiles writes files (path relative to dir: content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	}
}

// TestKustomizeInterrupted: krusty takes no context, yet a build that
// hangs (here a remote resource whose server never answers, which
// kustomize fetches with no timeout) ends when ctx does, with ctx's error,
// at once (issue 11: -k could not be interrupted with Ctrl-C).
func TestKustomizeInterrupted(t *testing.T) {
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
	t.Cleanup(func() { close(release) }) // the build left behind ends
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"kustomization.yaml": "resources: [" + srv.URL + "/cm.yaml]\n"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-requested
		time.Sleep(100 * time.Millisecond) // well inside the fetch
		cancel()
	}()
	start := time.Now()
	_, err := input.Read(ctx, input.Options{Kustomize: dir})
	took := time.Since(start)
	t.Logf("returned %s after the fetch began", took.Round(time.Millisecond))
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "-k "+dir+": context canceled")
	assert.Less(t, took, 2*time.Second)
}

// TestKustomizeCancelledBefore: a context already ended builds nothing.
func TestKustomizeCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := input.Read(ctx, input.Options{Kustomize: "../../testdata/kustomize/prod"})
	require.ErrorIs(t, err, context.Canceled)
}
