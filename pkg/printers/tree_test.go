package printers

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// configMap is a member ConfigMap in namespace shop for a cluster.
func configMap(t *testing.T, cluster, name, value string) render.Target {
	t.Helper()
	cm, ok := typeconfig.Builtin().ByFederatedKind("FederatedConfigMap")
	require.True(t, ok)
	src := &federation.Object{}
	src.Kind, src.Name, src.Namespace = "FederatedConfigMap", name, "shop"
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "shop"}, "data": map[string]any{"v": value}}
	return render.Target{Cluster: cluster, Type: cm, Object: obj, Source: src}
}

// files lists the regular files under dir, relative and slash-separated.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var got []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return err
	}))
	return got
}

func TestWriteTreeRewritesOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	clusters := []string{"c1", "c2"}
	require.NoError(t, WriteTree(dir, clusters, []render.Target{
		configMap(t, "c1", "same", "1"), configMap(t, "c1", "changes", "a longer value"), configMap(t, "c1", "goes", "1"), configMap(t, "c2", "same", "1"),
	}))
	same, changes := filepath.Join(dir, "c1", "shop", "configmap_same.yaml"), filepath.Join(dir, "c1", "shop", "configmap_changes.yaml")
	past := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(same, past, past))
	before, err := os.Stat(changes)
	require.NoError(t, err)
	// What someone put into a cluster directory goes as well.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "c1", "shop", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c1", "shop", "sub", "x.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c1", "notes.txt"), []byte("x"), 0o644))

	require.NoError(t, WriteTree(dir, clusters, []render.Target{configMap(t, "c1", "same", "1"), configMap(t, "c1", "changes", "2")}))
	assert.Equal(t, []string{".fedctl-render", "c1/.fedctl-keep", "c1/shop/configmap_changes.yaml", "c1/shop/configmap_same.yaml", "c2/.fedctl-keep"}, files(t, dir),
		"stale files and directories are gone; a cluster without objects keeps its directory, empty but for .fedctl-keep")
	st, err := os.Stat(same)
	require.NoError(t, err)
	assert.Equal(t, past, st.ModTime(), "a file with the right bytes is not written again")
	data, err := os.ReadFile(changes)
	require.NoError(t, err)
	want, err := yaml.Marshal(configMap(t, "c1", "changes", "2").Object)
	require.NoError(t, err)
	assert.Equal(t, string(want), string(data), "a file that held more bytes is cut to length")
	if runtime.GOOS != "windows" {
		after, err := os.Stat(changes)
		require.NoError(t, err)
		assert.True(t, os.SameFile(before, after), "a file with other bytes is rewritten in place, not created anew")
	}
}

func TestWriteTreeReplacesLinksAndNeverWritesThroughThem(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, elsewhere := filepath.Join(t.TempDir(), "out"), t.TempDir()
	clusters := []string{"c1", "c2"}
	targets := []render.Target{configMap(t, "c1", "a", "new"), configMap(t, "c1", "b", "new"), configMap(t, "c2", "a", "new")}
	require.NoError(t, WriteTree(dir, clusters, targets))

	// c1/shop/configmap_a.yaml links to a file outside the tree,
	// c1/shop/configmap_b.yaml is a hard link to one, and c2/shop links to
	// a directory outside it.
	outside := filepath.Join(elsewhere, "a.yaml")
	require.NoError(t, os.WriteFile(outside, []byte("outside\n"), 0o644))
	a := filepath.Join(dir, "c1", "shop", "configmap_a.yaml")
	require.NoError(t, os.Remove(a))
	require.NoError(t, os.Symlink(outside, a))
	backup := filepath.Join(elsewhere, "b.yaml")
	require.NoError(t, os.WriteFile(backup, []byte("backup\n"), 0o644))
	b := filepath.Join(dir, "c1", "shop", "configmap_b.yaml")
	require.NoError(t, os.Remove(b))
	require.NoError(t, os.Link(backup, b))
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "c2", "shop")))
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(dir, "c2", "shop")))

	require.NoError(t, WriteTree(dir, clusters, targets))
	for path, want := range map[string]string{outside: "outside\n", backup: "backup\n"} {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, want, string(data), "%s is outside the tree", path)
	}
	assert.NoFileExists(t, filepath.Join(elsewhere, "configmap_a.yaml"))
	assert.Equal(t, []string{".fedctl-render", "c1/.fedctl-keep", "c1/shop/configmap_a.yaml", "c1/shop/configmap_b.yaml", "c2/.fedctl-keep", "c2/shop/configmap_a.yaml"}, files(t, dir))
	for _, f := range []string{a, b} {
		st, err := os.Lstat(f)
		require.NoError(t, err)
		assert.True(t, st.Mode().IsRegular(), "%s is a file of its own", f)
	}
}

func TestWriteTreeRefusesAClusterNotListed(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	err := WriteTree(dir, []string{"c1"}, []render.Target{configMap(t, "c1", "a", "1"), configMap(t, "c2", "a", "1")})
	require.EqualError(t, err, "--output-dir: cluster c2 of FederatedConfigMap shop/a is not among the clusters written")
	assert.Equal(t, []string{".fedctl-render", "c1/shop/configmap_a.yaml"}, files(t, dir))
}
