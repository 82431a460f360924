package cordon

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

func run(t *testing.T, path string, uncordon bool, args ...string) (string, error) {
	t.Helper()
	ios, _, _, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(path) }}
	cmd := NewCmdCordon(f, func(o *CordonOptions) error {
		o.Now = func() time.Time { return time.Date(2026, 11, 25, 8, 0, 0, 0, time.UTC) }
		return o.Run()
	})
	if uncordon {
		cmd = NewCmdUncordon(f, nil)
	}
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return errOut.String(), err
}

// TestCordon: cordon records the member's cordon with its reason and time
// in the federation file (mode 0600, atomically, as every write), and
// uncordon removes it; both say when nothing changes; a name that is not a
// member is an error naming the members.
func TestCordon(t *testing.T) {
	path := filepath.Join(t.TempDir(), "federation.yaml")
	require.NoError(t, os.WriteFile(path, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: eu-1}, {name: us-1}]\ntypes: []\n"), 0o600))

	errOut, err := run(t, path, false, "eu-1", "--reason", "node pool upgrade")
	require.NoError(t, err)
	assert.Equal(t, "✓ cluster/eu-1 cordoned\n", errOut)
	file, err := members.Load(path)
	require.NoError(t, err)
	m, _ := file.Federation.Member("eu-1")
	assert.Equal(t, &members.Cordon{Reason: "node pool upgrade", Since: "2026-11-25T08:00:00Z"}, m.Cordoned)
	assert.Equal(t, []string{"eu-1"}, file.Federation.CordonedNames())
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	errOut, err = run(t, path, false, "eu-1", "--reason", "node pool upgrade")
	require.NoError(t, err)
	assert.Equal(t, "cluster/eu-1 already cordoned (no change)\n", errOut)

	errOut, err = run(t, path, true, "eu-1")
	require.NoError(t, err)
	assert.Equal(t, "✓ cluster/eu-1 uncordoned\n", errOut)
	file, err = members.Load(path)
	require.NoError(t, err)
	assert.Empty(t, file.Federation.CordonedNames())

	errOut, err = run(t, path, true, "eu-1")
	require.NoError(t, err)
	assert.Equal(t, "cluster/eu-1 not cordoned (no change)\n", errOut)

	_, err = run(t, path, false, "nope")
	assert.EqualError(t, err, `cluster "nope" is not a member (members: eu-1, us-1)`)
}
