package federate

import (
	"path/filepath"
	"strings"
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

// TestFederateDropsFedctlMarkers: an object fedctl propagated keeps its own
// labels in the template, but not fedctl's markers (apply sets them), above
// all not an ApplySet's part-of label, which would claim the object for
// that set in every member.
func TestFederateDropsFedctlMarkers(t *testing.T) {
	t.Parallel()
	in := `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: shop
  labels:
    app: web
    app.kubernetes.io/managed-by: fedctl
    kubefed.io/managed: "true"
    applyset.kubernetes.io/part-of: applyset-abc-v1
data: {k: v}
`
	out, errOut, err := runOffline(t, in, "-f", "-")
	require.NoError(t, err)
	assert.Contains(t, out, "  template:\n    data:\n      k: v\n    metadata:\n      labels:\n        app: web\n")
	assert.NotContains(t, out, "managed")
	assert.NotContains(t, out, "applyset")
	assert.Contains(t, errOut, "fedctl's markers dropped: kubefed.io/managed, app.kubernetes.io/managed-by, applyset.kubernetes.io/part-of (apply sets them)")

	// Another tool's managed-by is the user's label and stays.
	out, _, err = runOffline(t, strings.Replace(in, "managed-by: fedctl", "managed-by: helm", 1), "-f", "-")
	require.NoError(t, err)
	assert.Contains(t, out, "app.kubernetes.io/managed-by: helm")
}
