package federate

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

const goldenDir = "../../testdata/golden/federate"

func runOffline(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) {
		return members.Load(filepath.Join(t.TempDir(), "none.yaml"))
	}}
	cmd := NewCmdFederate(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestFederateOffline(t *testing.T) {
	t.Parallel()
	out, errOut, err := runOffline(t, "", "-f", "../../testdata/manifests/plain/app.yaml")
	require.NoError(t, err)
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "app.yaml"))
	testutil.AssertGolden(t, []byte(errOut), filepath.Join(goldenDir, "app.stderr"))

	// The output renders: federate's result is valid fedctl input.
	json, _, err := runOffline(t, "", "-f", "../../testdata/manifests/plain/app.yaml", "-o", "json")
	require.NoError(t, err)
	assert.Contains(t, json, `"kind": "List"`)
}

func TestFederateOfflineErrors(t *testing.T) {
	t.Parallel()
	_, _, err := runOffline(t, "apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: x}\n---\napiVersion: v1\nkind: ConfigMap\n", "-f", "-")
	require.Error(t, err)
	assert.Equal(t, "STDIN:1: FederatedConfigMap x: is already a federated object\nSTDIN:5: ConfigMap: needs kind and metadata.name", err.Error(), "standard input is STDIN, as kubectl names it")

	_, _, err = runOffline(t, "", "-f", "x.yaml", "deployments", "web")
	require.EqualError(t, err, "give either -f or TYPE NAME, not both")
	_, _, err = runOffline(t, "", "deployments")
	require.EqualError(t, err, `"federate" needs -f FILENAME or TYPE NAME`)
	_, _, err = runOffline(t, "", "-f", "x.yaml", "--contents")
	require.EqualError(t, err, "--contents needs TYPE NAME of a namespace, not -f")
}
