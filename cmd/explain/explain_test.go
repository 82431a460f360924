package explain

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

const (
	examples        = "../../testdata/examples"
	threeClusters   = "../../testdata/federation/three-clusters.yaml"
	abc             = "testdata/federation-abc.yaml"
	regions         = "testdata/federation-regions.yaml"
	goldenDir       = "../../testdata/golden/explain"
	errorsManifests = "../../testdata/manifests/errors"
	// kustomizeProd is an overlay on the examples: namePrefix, commonLabels
	// and patches of the template and of the RSP.
	kustomizeProd = "../../testdata/kustomize/prod"
)

// run executes "fedctl explain" with args against the federation file fed
// and returns stdout, stderr and the error.
func run(t *testing.T, fed string, tty bool, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	ios.SetTTY(tty)
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(fed) }}
	cmd := NewCmdExplain(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestExplainGolden(t *testing.T) {
	t.Setenv("NO_COLOR", "") // colour is decided by the terminal alone here
	for _, tt := range []struct {
		name       string
		fed        string
		args       []string
		golden     string
		wantStderr string
	}{
		{name: "the examples", fed: threeClusters, args: []string{"-f", examples}, golden: "examples.txt"},
		{name: "the examples as JSON", fed: threeClusters, args: []string{"-f", examples, "-o", "json"}, golden: "examples.json"},
		{name: "the examples as YAML", fed: threeClusters, args: []string{"-f", examples, "-o", "yaml"}, golden: "examples.yaml"},
		{name: "the rollout's waves", fed: threeClusters, args: []string{"-f", examples, "--rollout", "--waves", "tier=staging;region=eu-west-1;*", "shop/web"}, golden: "rollout.txt"},
		{name: "the rollout's waves as JSON", fed: threeClusters, args: []string{"-f", examples, "--rollout", "--waves", "tier=staging;region=eu-west-1;*", "shop/web", "-o", "json"}, golden: "rollout.json"},
		{name: "one object by kind and name, one cluster", fed: threeClusters, args: []string{"-f", examples, "deployment/web", "--cluster", "cluster2"}, golden: "examples-web-cluster2.txt"},
		{name: "seed: A{min 4, max 6, weight 1} and B{min 4, max 8, weight 2} over 9 replicas", fed: abc, args: []string{"-f", "testdata/rsp-9"}, golden: "rsp-9.txt"},
		{name: "max caps, a weight-0 minimum and replicas that fit nowhere", fed: abc, args: []string{"-f", "testdata/rsp-capped"}, golden: "rsp-capped.txt"},
		{name: "seed: the three-cluster 15-replica example", fed: regions, args: []string{"-f", "testdata/rsp-15"}, golden: "rsp-15.txt"},
		{name: "seed: the three-cluster 15-replica example as JSON", fed: regions, args: []string{"-f", "testdata/rsp-15", "-o", "json"}, golden: "rsp-15.json"},
		{
			name: "placement: selector terms, FederatedNamespace intersection, unknown names, nil and empty, system namespace",
			fed:  abc, args: []string{"-f", "testdata/placement"}, golden: "placement.txt",
			wantStderr: "Warning: testdata/placement/objects.yaml:38: FederatedConfigMap shop/listed: spec.placement.clusters: not members, ignored: nope\n" +
				"Warning: testdata/placement/objects.yaml:70: FederatedConfigMap other/orphan: metadata.namespace: NamespaceNotFederated: no FederatedNamespace other in the input, so the object is placed nowhere\n" +
				"Warning: testdata/placement/objects.yaml:77: FederatedNamespace kube-system/kube-system: namespace kube-system is a system namespace and is never propagated; its placement still applies to the objects in it\n",
		},
		{
			// kustomize's namePrefix renames the FederatedDeployment and its
			// RSP together, so the plan still applies (9 replicas, from a
			// patch), and the output's documents name the files of the base
			name: "-k: a kustomization over the examples", fed: threeClusters, args: []string{"-k", kustomizeProd}, golden: "kustomize-prod.txt",
			wantStderr: "warning: kustomization " + kustomizeProd + ": 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n",
		},
		{
			name: "overrides by cluster selector: each member's entries in order, later wins", fed: threeClusters,
			args: []string{"-f", "../../testdata/manifests/override-selectors", "deployment/web"}, golden: "override-selectors.txt",
		},
		{
			// Federation v1's annotation compiles into an RSP: the plan is
			// explained as KubeFed's, hash key "shop/web".
			name: "Federation v1: an annotated Deployment and ReplicaSet", fed: threeClusters, args: []string{"-f", "../../testdata/manifests/fedv1"}, golden: "fedv1.txt",
			wantStderr: "Warning: ../../testdata/manifests/fedv1/app.yaml:11: FederatedDeployment shop/web: spec.template.metadata: annotations of the template are not propagated (as in KubeFed); use overrides to set them per cluster\n",
		},
		{
			// Karmada: the policy chosen and why, the candidates, the
			// division seat by seat, each overrider's before → after.
			name: "Karmada: policies over plain manifests", fed: "../../testdata/federation/three-regions.yaml",
			args: []string{"-f", "../../testdata/karmada"}, golden: "karmada.txt",
		},
		{
			name: "Karmada as JSON", fed: "../../testdata/federation/three-regions.yaml",
			args: []string{"-f", "../../testdata/karmada", "deployment/api", "-o", "json"}, golden: "karmada.json",
		},
		{
			name: "overrides: old and new values, a failing override, Secret data hidden",
			fed:  abc, args: []string{"-f", "testdata/overrides"}, golden: "overrides.txt",
			wantStderr: "Warning: testdata/overrides/app.yaml:18: FederatedDeployment shop/api: spec.template.metadata: annotations of the template are not propagated (as in KubeFed); use overrides to set them per cluster\n" +
				"! 2 federated objects explained fail to render for some or all members (see the explanation); fedctl render and apply report this as an error\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, err := run(t, tt.fed, false, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, tt.wantStderr, errOut)
			testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, tt.golden))
			again, _, err := run(t, tt.fed, false, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, out, again, "the same input gives the same bytes")
			if strings.HasSuffix(tt.golden, ".txt") {
				tty, _, err := run(t, tt.fed, true, tt.args...)
				require.NoError(t, err)
				assert.Contains(t, tty, "\x1b[", "colour on a terminal")
				t.Setenv("NO_COLOR", "1")
				noColor, _, err := run(t, tt.fed, true, tt.args...)
				t.Setenv("NO_COLOR", "")
				require.NoError(t, err)
				assert.Equal(t, out, noColor, "NO_COLOR on a terminal gives the plain bytes")
			}
		})
	}
}

// TestExplainJSONAndYAMLAgree: both formats carry the same document.
func TestExplainJSONAndYAMLAgree(t *testing.T) {
	t.Parallel()
	j, _, err := run(t, abc, false, "-f", "testdata/placement", "-o", "json")
	require.NoError(t, err)
	y, _, err := run(t, abc, false, "-f", "testdata/placement", "-o", "yaml")
	require.NoError(t, err)
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal([]byte(j), &fromJSON))
	require.NoError(t, yaml.Unmarshal([]byte(y), &fromYAML))
	assert.Equal(t, fromJSON, fromYAML)
}

func TestExplainErrors(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, threeClusters, false, "-f", errorsManifests)
	require.Error(t, err)
	assert.Empty(t, out, "nothing is explained from an input that does not decode")
	var lines []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		lines = append(lines, e.Error())
	}
	// The same report as fedctl render's, read and never rewritten here.
	want, err := os.ReadFile("../../testdata/golden/render/errors.txt")
	require.NoError(t, err)
	assert.Equal(t, string(want), errOut+strings.Join(lines, "\n")+"\n")

	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-f", examples, "nope"}, `no federated object matches "nope"; the input has: FederatedConfigMap shop/web-config, FederatedNamespace shop/shop, FederatedDeployment shop/web`},
		{[]string{"-f", examples, "configmap/web"}, `no federated object matches "configmap/web"; the input has: FederatedConfigMap shop/web-config, FederatedNamespace shop/shop, FederatedDeployment shop/web`},
		{[]string{"-f", examples, "--cluster", "cluster9"}, `cluster "cluster9" is not a member (members: cluster1, cluster2, cluster3)`},
		{[]string{"-f", "../../testdata/nope"}, "../../testdata/nope: no such file or directory"},
	} {
		_, _, err := run(t, threeClusters, false, tt.args...)
		assert.EqualError(t, err, tt.wantErr, "args %q", tt.args)
	}
}

func TestNewCmdExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		want    ExplainOptions
		wantErr string
	}{
		{name: "defaults", args: []string{"-f", "dir"}, want: ExplainOptions{Filenames: []string{"dir"}, Names: []string{}, Namespace: "default", Output: "text"}},
		{
			name: "every flag and names",
			args: []string{"-R", "-f", "a", "-f", "b", "--cluster", "c1", "--cluster", "c2", "-n", "shop", "-o", "json", "web", "deployment/web", "FederatedDeployment/shop/web"},
			want: ExplainOptions{Filenames: []string{"a", "b"}, Recursive: true, Clusters: []string{"c1", "c2"}, Namespace: "shop", Output: "json",
				Names: []string{"web", "deployment/web", "FederatedDeployment/shop/web"}},
		},
		{name: "no -f", args: []string{"web"}, wantErr: "-f is required: a file, a directory, an http(s) URL or - for standard input; or -k DIR for a kustomization"},
		{name: "bad output", args: []string{"-f", "d", "-o", "wide"}, wantErr: `--output must be text, json or yaml, got "wide"`},
		{name: "too many slashes", args: []string{"-f", "d", "a/b/c/d"}, wantErr: `"a/b/c/d" is not NAME, KIND/NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME`},
		{name: "an empty part", args: []string{"-f", "d", "deployment/"}, wantErr: `"deployment/" is not NAME, KIND/NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, _ := iostreams.Test()
			var got *ExplainOptions
			cmd := NewCmdExplain(&cmdutil.Factory{IOStreams: ios}, func(o *ExplainOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			cmd.SetOut(&bytes.Buffer{})
			cmd.SetErr(&bytes.Buffer{})
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				var fe *cmdutil.FlagError
				require.ErrorAs(t, err, &fe)
				assert.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.NotNil(t, got.NewClient, "members are reached with --live")
			got.IO, got.NewClient = nil, nil
			assert.Equal(t, tt.want, *got)
		})
	}
}

// TestExplainNeverPrintsSecretData: the values of a FederatedSecret's
// template and overrides appear in no output format.
func TestExplainNeverPrintsSecretData(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"text", "json", "yaml"} {
		out, errOut, err := run(t, abc, false, "-f", "testdata/overrides", "creds", "-o", format)
		require.NoError(t, err)
		assert.Contains(t, out, "/stringData/password", format)
		for _, secret := range []string{"hunter2", "s3cret"} {
			assert.NotContains(t, out+errOut, secret, format)
		}
	}
}

// TestExplainWarnsAboutTheObjectsExplained: with names, only their
// warnings are printed; without, every warning, as fedctl render prints
// them.
func TestExplainWarnsAboutTheObjectsExplained(t *testing.T) {
	t.Parallel()
	_, errOut, err := run(t, abc, false, "-f", "testdata/placement", "listed")
	require.NoError(t, err)
	assert.Equal(t, "Warning: testdata/placement/objects.yaml:38: FederatedConfigMap shop/listed: spec.placement.clusters: not members, ignored: nope\n", errOut)
	_, errOut, err = run(t, abc, false, "-f", "testdata/placement", "eu-only")
	require.NoError(t, err)
	assert.Empty(t, errOut)
	_, errOut, err = run(t, abc, false, "-f", "testdata/placement")
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(errOut, "Warning:"), errOut)
}

// TestExplainSelector: -l explains the federated objects whose labels
// match, exactly as naming them does: the FederatedNamespace it leaves out
// still places them, and the RSP still plans them.
func TestExplainSelector(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, e := range []string{"00-namespace.yaml", "10-configmap.yaml", "20-deployment.yaml"} {
		data, err := os.ReadFile(filepath.Join(examples, e))
		require.NoError(t, err)
		if e == "20-deployment.yaml" {
			data = bytes.Replace(data, []byte("  name: web\n  namespace: shop\nspec:"), []byte("  name: web\n  namespace: shop\n  labels: {app: web}\nspec:"), 1)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, e), data, 0o644))
	}
	named, _, err := run(t, threeClusters, false, "-f", dir, "deployment/web")
	require.NoError(t, err)
	selected, _, err := run(t, threeClusters, false, "-f", dir, "-l", "app=web")
	require.NoError(t, err)
	assert.Equal(t, named, selected)
	assert.Contains(t, selected, "FederatedNamespace")

	_, _, err = run(t, threeClusters, false, "-f", dir, "-l", "app=api")
	assert.EqualError(t, err, "-f "+dir+" holds no federated objects matching -l app=api; check the -f path and the selector, or pass --allow-empty if that is what you mean")
}
