package federate

import (
	"os"
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

	// nothing to federate is an error, not an empty List
	_, _, err = runOffline(t, "", "-f", "-")
	require.EqualError(t, err, "standard input (-f -) holds no objects to federate; check what is piped in")
	_, _, err = runOffline(t, "", "-f", t.TempDir())
	require.ErrorContains(t, err, "holds no objects to federate")

	_, _, err = runOffline(t, "", "-f", "x.yaml", "deployments", "web")
	require.EqualError(t, err, "give either -f (or -k) or TYPE NAME, not both")
	_, _, err = runOffline(t, "", "deployments")
	require.EqualError(t, err, `"federate" needs -f FILENAME, -k DIR or TYPE NAME`)
	_, _, err = runOffline(t, "", "-f", "x.yaml", "--contents")
	require.EqualError(t, err, "--contents needs TYPE NAME of a namespace, not -f or -k")
	_, _, err = runOffline(t, "", "-f", "x.yaml", "-k", "dir")
	require.EqualError(t, err, "-f and -k cannot be used together")
}

// TestFederateKustomize: -k federates a kustomization's output, as render's
// error for a plain object in it says to; what kustomize changed (the
// namespace, a prefix) is in the template, and a build that makes nothing
// is an error naming the directory.
func TestFederateKustomize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	write("kustomization.yaml", "namespace: shop\nnamePrefix: prod-\nresources: [cm.yaml]\n")
	write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {k: v}\n")
	out, _, err := runOffline(t, "", "-k", dir)
	require.NoError(t, err)
	assert.Contains(t, out, "kind: FederatedConfigMap")
	assert.Contains(t, out, "name: prod-settings")
	assert.Contains(t, out, "namespace: shop")

	write("kustomization.yaml", "resources: []\n")
	_, _, err = runOffline(t, "", "-k", dir)
	require.EqualError(t, err, "-k "+dir+" builds no objects to federate; check the kustomization's resources")
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

func runWithFederation(t *testing.T, federationFile string, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(federationFile) },
		Access: func() (members.Access, error) { return members.Access{}, nil }}
	cmd := NewCmdFederate(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// TestFederateToKarmada: the examples (an RSP, overrides, a FederatedNamespace)
// become plain manifests plus Karmada policies; read back as Karmada input
// they render the same member objects (federate --to karmada is convert
// --to karmada --verify). The RSP's minimums and maximums have no Karmada
// equivalent: exit code 3.
func TestFederateToKarmada(t *testing.T) {
	t.Parallel()
	out, errOut, err := runWithFederation(t, "../../testdata/federation/three-clusters.yaml", "-f", "../../testdata/examples", "--to", "karmada")
	var exit *cmdutil.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, ExitApproximated, exit.Code)
	assert.Contains(t, errOut, `20-deployment.yaml:52: ReplicaSchedulingPreference shop/web: minReplicas/maxReplicas of "*" (every other member) have no Karmada equivalent`)
	assert.Contains(t, errOut, "verified: read back as karmada input, the output renders every member object as the input does")
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "examples-karmada.yaml"))
	assert.NotContains(t, out, "types.kubefed.io")
}

// TestFederateToKarmadaPlain: plain manifests under --to karmada are
// federated first, and the output is what the two halves of federate
// piped into each other write; before, they were refused with a hint to
// run federate, the command just run.
func TestFederateToKarmadaPlain(t *testing.T) {
	t.Parallel()
	const fedFile = "../../testdata/federation/three-clusters.yaml"
	plain := filepath.Join(t.TempDir(), "plain.yaml")
	require.NoError(t, os.WriteFile(plain, []byte(`apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx:1.27}]}
`), 0o600))
	out, errOut, err := runWithFederation(t, fedFile, "-f", plain, "--to", "karmada")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "kind: PropagationPolicy")
	assert.NotContains(t, out, "types.kubefed.io")

	federated, _, err := runWithFederation(t, fedFile, "-f", plain)
	require.NoError(t, err)
	ios, in, piped, _ := iostreams.Test()
	in.WriteString(federated)
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(fedFile) },
		Access: func() (members.Access, error) { return members.Access{}, nil }}
	cmd := NewCmdFederate(f, nil)
	cmd.SetArgs([]string{"-f", "-", "--to", "karmada"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.Execute())
	assert.Equal(t, piped.String(), out)

	// an object federated already is read as it is, beside a plain one
	mixed := filepath.Join(t.TempDir(), "mixed.yaml")
	require.NoError(t, os.WriteFile(mixed, []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: shop}\ndata: {k: v}\n---\n"+
		"apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: fed, namespace: shop}\nspec:\n  template: {data: {k: w}}\n  placement: {clusters: [{name: cluster1}]}\n"), 0o600))
	out, errOut, err = runWithFederation(t, fedFile, "-f", mixed, "--to", "karmada")
	require.NoError(t, err, errOut)
	assert.Contains(t, out, "name: plain", errOut)
	assert.Contains(t, out, "name: fed")
}

// TestFederateToKarmadaApproximated: a member planned 0 replicas gets no
// object from Karmada: said with the file and line, exit code 3; an object
// placed nowhere is left out, said as a note.
func TestFederateToKarmadaApproximated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fedFile := filepath.Join(dir, "federation.yaml")
	require.NoError(t, os.WriteFile(fedFile, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: a}, {name: b}]\ntypes: []\n"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: ns, namespace: ns}
spec:
  placement: {clusterSelector: {}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: ns}
spec:
  template:
    spec:
      replicas: 1
      selector: {matchLabels: {app: web}}
      template:
        metadata: {labels: {app: web}}
        spec: {containers: [{name: web, image: nginx}]}
  placement: {clusterSelector: {}}
---
apiVersion: scheduling.kubefed.io/v1alpha1
kind: ReplicaSchedulingPreference
metadata: {name: web, namespace: ns}
spec:
  targetKind: FederatedDeployment
  totalReplicas: 1
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: nowhere, namespace: ns}
spec:
  placement: {clusters: []}
`), 0o600))
	out, errOut, err := runWithFederation(t, fedFile, "-f", filepath.Join(dir, "app.yaml"), "--to", "karmada")
	var exit *cmdutil.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, ExitApproximated, exit.Code)
	assert.Contains(t, errOut, "app.yaml:7: FederatedDeployment ns/web: member b is planned 0 replicas: Karmada removes members divided 0")
	assert.Contains(t, errOut, "note: "+filepath.Join(dir, "app.yaml")+":27: FederatedConfigMap ns/nowhere: not converted: placed in no member")
	assert.NotContains(t, out, "name: nowhere")
	assert.Contains(t, out, "kind: PropagationPolicy")
}

// TestFederateDialects: Karmada and Federation v1 input is compiled and
// written as KubeFed's federated objects (with the RSPs Federation v1's
// annotations become), checked to render as the input does.
func TestFederateDialects(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, federation, dir, golden string }{
		{"Karmada", "three-regions.yaml", "../../testdata/karmada", "karmada-kubefed.yaml"},
		{"Federation v1", "three-clusters.yaml", "../../testdata/manifests/fedv1", "fedv1-kubefed.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, _, err := runWithFederation(t, "../../testdata/federation/"+tc.federation, "-f", tc.dir)
			require.NoError(t, err)
			testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, tc.golden))
			assert.NotContains(t, out, "policy.karmada.io", "the policies are compiled, not federated")
		})
	}
}

// TestFederateKarmadaWithoutNamespace: a Karmada object whose Namespace is
// not in the input is placed by its policy; KubeFed would place it
// nowhere, which is said, with exit code 3.
func TestFederateKarmadaWithoutNamespace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(`apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: app}
data: {k: v}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: all, namespace: app}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap}]
`), 0o600))
	out, errOut, err := runWithFederation(t, "../../testdata/federation/three-clusters.yaml", "-f", filepath.Join(dir, "app.yaml"))
	var exit *cmdutil.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, ExitApproximated, exit.Code)
	assert.Contains(t, out, "kind: FederatedConfigMap")
	assert.Contains(t, errOut, "app.yaml:1: FederatedConfigMap app/cfg: namespace app is not in the input: KubeFed places the object nowhere without its FederatedNamespace")
}
