package members_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
)

func TestLoadMissingFileIsEmpty(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "nope", "config.yaml")
	f, err := members.Load(path)
	require.NoError(t, err)
	assert.Equal(t, members.New(), f.Federation)
	_, err = os.Stat(path)
	assert.True(t, os.IsNotExist(err), "loading must not create the file")
}

func TestSaveIsAtomicWithMode0600(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "config.yaml")
	f, err := members.Load(path)
	require.NoError(t, err)

	fed := f.Federation.Clone()
	require.NoError(t, fed.Put(members.Member{Name: "eu-1", Context: "kind-eu-1", Labels: map[string]string{"region": "eu"}}, false))
	require.NoError(t, f.Save(fed))

	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, `apiVersion: fedctl.io/v1alpha1
kind: Federation
clusters:
  - name: eu-1
    context: kind-eu-1
    labels:
      region: eu
types: []
`, string(data))

	// An existing file with loose permissions is replaced by a 0600 one, and
	// the temporary file does not stay behind.
	require.NoError(t, os.Chmod(path, 0o644))
	before, err := os.Stat(path)
	require.NoError(t, err)
	fed.Remove("eu-1")
	require.NoError(t, f.Save(fed))
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), after.Mode().Perm())
	assert.False(t, os.SameFile(before, after), "the file is replaced by rename, not rewritten in place")
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary file is left behind")

	reloaded, err := members.Load(path)
	require.NoError(t, err)
	assert.Equal(t, fed, reloaded.Federation)
}

func TestSaveFollowsSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "repo", "federation.yaml")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o700))
	require.NoError(t, os.WriteFile(real, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\n"), 0o600))
	link := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.Symlink(real, link))

	f, err := members.Load(link)
	require.NoError(t, err)
	fed := f.Federation.Clone()
	require.NoError(t, fed.Put(members.Member{Name: "a"}, false))
	require.NoError(t, f.Save(fed))

	st, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, st.Mode()&os.ModeSymlink, "the link stays a link")
	got, err := members.Load(real)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, got.Federation.Names())
}

func TestSaveFailureLeavesTheOldFile(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root can write into a read-only directory")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	orig := []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\n")
	require.NoError(t, os.WriteFile(path, orig, 0o600))
	require.NoError(t, os.Chmod(dir, 0o500))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	f, err := members.Load(path)
	require.NoError(t, err)
	require.Error(t, f.Save(members.New()))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, orig, data)
}

func TestLoadReportsDecodeErrors(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusterz: []\n"), 0o600))
	_, err := members.Load(path)
	require.EqualError(t, err, path+`:3: unknown field "clusterz" (did you mean "clusters"?)`)
}

// TestDirFollowsALink: a federation file linked from elsewhere is read
// relative to where it really is, as Save writes it there.
func TestDirFollowsALink(t *testing.T) {
	repo, home := t.TempDir(), t.TempDir()
	real := filepath.Join(repo, "fed.yaml")
	require.NoError(t, os.WriteFile(real, []byte("kind: Federation\n"), 0o600))
	link := filepath.Join(home, "config.yaml")
	require.NoError(t, os.Symlink(real, link))
	want, err := filepath.EvalSymlinks(repo)
	require.NoError(t, err)
	assert.Equal(t, want, members.Dir(link))
	assert.Equal(t, home, members.Dir(filepath.Join(home, "missing.yaml")), "a file that does not exist yet: its own directory")
}

// TestSaveRefusesAFileChangedSinceLoad: two commands that load, take
// their time (join's network checks) and save must not lose one's write:
// the second is refused, nothing written, and told to run again.
func TestSaveRefusesAFileChangedSinceLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	first, err := members.Load(path) // missing: an empty federation
	require.NoError(t, err)
	second, err := members.Load(path)
	require.NoError(t, err)

	a := first.Federation.Clone()
	require.NoError(t, a.Put(members.Member{Name: "a"}, false))
	require.NoError(t, first.Save(a))
	b := second.Federation.Clone()
	require.NoError(t, b.Put(members.Member{Name: "b"}, false))
	var changed *members.ChangedError
	require.ErrorAs(t, second.Save(b), &changed)
	assert.EqualError(t, changed, "federation file "+path+" changed since this command read it (another fedctl wrote it?); nothing was written: run the command again")
	again, err := members.Load(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, again.Federation.Names(), "the first write stands")

	// A file saved by this command can be saved again; one loaded after
	// the other's write saves.
	require.NoError(t, again.Save(b))
	require.NoError(t, again.Save(a))
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\n"), 0o600))
	require.ErrorAs(t, again.Save(b), &changed, "edited by hand in between")
}
