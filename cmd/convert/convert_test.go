package convert

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sigs.k8s.io/yaml"

	rendercmd "github.com/fedctl/fedctl/cmd/render"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

const (
	goldenDir     = "../../testdata/golden/convert"
	rulesDir      = "../../testdata/convert"
	threeClusters = "../../testdata/federation/three-clusters.yaml"
)

func run(t *testing.T, federationFile string, args ...string) (string, string, error) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(federationFile) },
		Access: func() (members.Access, error) { return members.Access{}, nil }}
	cmd := NewCmdConvert(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

// TestKarmadaRules: one input per mapping rule, converted and verified;
// the documents and the report are golden files, and the exit code is 3
// exactly when something is approximated.
func TestKarmadaRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule       string
		federation string
		code       int
		errOut     []string
	}{
		{rule: "empty-placement", errOut: []string{"empty-placement.yaml:10: FederatedConfigMap shop/nowhere: not converted: placed in no member"}},
		{rule: "replace-missing-key"},
		{rule: "star-weights", errOut: []string{`star-weights.yaml:29: ReplicaSchedulingPreference shop/web: the "*" weight becomes an explicit weight`}},
		{rule: "min-max-rebalance", code: 3, errOut: []string{
			"min-max-rebalance.yaml:30: ReplicaSchedulingPreference shop/api: minReplicas/maxReplicas of cluster1, cluster2 have no Karmada equivalent",
			"min-max-rebalance.yaml:28: ReplicaSchedulingPreference shop/api: rebalance has no Karmada equivalent",
		}},
		{rule: "zero-replicas", code: 3, errOut: []string{"zero-replicas.yaml:9: FederatedDeployment shop/batch: member cluster3 is planned 0 replicas"}},
		{rule: "namespace-some-members"},
		{rule: "orphan-retain-dns", code: 3, errOut: []string{
			`orphan-retain-dns.yaml:13: FederatedDeployment shop/web: kubefed.io/orphan: "true" becomes preserveResourcesOnDeletion`,
			"orphan-retain-dns.yaml:13: FederatedDeployment shop/web: retainReplicas becomes the template label resourcetemplate.karmada.io/retain-replicas",
			"orphan-retain-dns.yaml:35: ServiceDNSRecord shop/web: not converted: Karmada does not write fedctl's DNSEndpoints",
		}},
		{rule: "cluster-scoped"},
		{rule: "namespace-scoped", federation: filepath.Join(rulesDir, "namespace-scoped.federation.yaml"), errOut: []string{
			"note: ../../testdata/convert/namespace-scoped.federation.yaml: namespace team: holds the templates in Karmada and is not synced to members",
		}},
		{rule: "member-names", federation: filepath.Join(rulesDir, "member-names.federation.yaml"), errOut: []string{
			"note: ../../testdata/convert/member-names.federation.yaml: member eu.west: Karmada takes cluster names that are DNS-1123 labels of at most 48 characters: it is the Karmada cluster eu-west-46bb3d",
			"karmadactl join ap-southeast-production-cluster-number-on-47948a",
			" --cluster-context kind-ap --cluster-kubeconfig /home/ops/.kube/ap.yaml",
			"karmadactl join us --cluster-context us",
		}},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			t.Parallel()
			fed := threeClusters
			if tc.federation != "" {
				fed = tc.federation
			}
			out, errOut, err := run(t, fed, "--to", "karmada", "-f", filepath.Join(rulesDir, tc.rule+".yaml"), "--verify")
			assert.Equal(t, tc.code, cmdutil.ExitCodeOf(err), "%v\n%s", err, errOut)
			testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, tc.rule+".yaml"))
			testutil.AssertGolden(t, []byte(errOut), filepath.Join(goldenDir, tc.rule+".stderr"))
			assert.Contains(t, errOut, "verified: read back as karmada input, the output renders every member object as the input does")
			for _, s := range tc.errOut {
				assert.Contains(t, errOut, s)
			}
			assert.NotContains(t, out, "fedctl.io/", "fedctl's markers are not Karmada's")
			assert.NotContains(t, out, "kubefed.io/managed")
		})
	}
}

// TestKarmadaMappings: what each rule's output says, beyond the golden
// files: the forms Karmada needs.
func TestKarmadaMappings(t *testing.T) {
	t.Parallel()
	out, _, err := run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "replace-missing-key.yaml"))
	require.NoError(t, err)
	assert.Contains(t, out, "- operator: add\n        path: /data/region\n        value: eu-west-2\n", "KubeFed's replace of a missing key becomes add")
	assert.Contains(t, out, "- operator: replace\n        path: /data/mode\n        value: eu\n")
	assert.Contains(t, out, "conflictResolution: Overwrite")
	assert.Contains(t, out, "  placement: {}\n", "placed everywhere: Karmada's empty affinity selects every cluster")

	out, _, err = run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "empty-placement.yaml"))
	require.NoError(t, err)
	assert.NotContains(t, out, "name: nowhere", "an empty KubeFed placement selects nothing; an empty Karmada one everything: left out")
	assert.Contains(t, out, "clusterNames:\n      - cluster3\n", "a selector becomes today's members by name")

	out, _, err = run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "star-weights.yaml"))
	require.NoError(t, err)
	assert.Contains(t, out, "replicas: 10")
	assert.Contains(t, out, "- cluster1\n          weight: 6\n")
	assert.NotContains(t, out, `"*"`)
	assert.Contains(t, out, "replicaSchedulingType: Divided")

	out, _, err = run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "cluster-scoped.yaml"))
	require.NoError(t, err)
	assert.Contains(t, out, "kind: ClusterPropagationPolicy")
	assert.Contains(t, out, "kind: ClusterOverridePolicy")
	assert.NotContains(t, out, "kind: PropagationPolicy")
}

// TestKarmadaExamples: the examples (an RSP with minimums and maximums,
// overrides, a FederatedNamespace) convert, verify, and exit 3 for the
// RSP's bounds.
func TestKarmadaExamples(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, threeClusters, "--to", "karmada", "-f", "../../testdata/examples", "--verify")
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err), errOut)
	// the golden file of federate --to karmada, which is this command
	testutil.AssertGolden(t, []byte(out), "../../testdata/golden/federate/examples-karmada.yaml")
	testutil.AssertGolden(t, []byte(errOut), filepath.Join(goldenDir, "examples.stderr"))
}

// TestKarmadaJSON: -o json is the report, with the documents, each note at
// its file:line, the verdict and the registration commands.
func TestKarmadaJSON(t *testing.T) {
	t.Parallel()
	out, _, err := run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "min-max-rebalance.yaml"), "-o", "json", "--verify")
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err))
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, "ConversionReport", rep.Kind)
	assert.Equal(t, "karmada", rep.To)
	require.Len(t, rep.Approximated, 2)
	assert.Equal(t, "../../testdata/convert/min-max-rebalance.yaml:30", rep.Approximated[0].Where)
	assert.Equal(t, "ReplicaSchedulingPreference shop/api", rep.Approximated[0].Object)
	assert.False(t, rep.Approximated[0].Exact)
	require.NotNil(t, rep.Verified)
	assert.True(t, *rep.Verified)
	assert.Len(t, rep.Items, 3, "the Namespace (everywhere: no policy), the Deployment and its PropagationPolicy (no member differs: no OverridePolicy)")
	assert.Equal(t, []Registration{
		{Member: "cluster1", Name: "cluster1", Command: "karmadactl join cluster1 --cluster-context cluster1"},
		{Member: "cluster2", Name: "cluster2", Command: "karmadactl join cluster2 --cluster-context cluster2"},
		{Member: "cluster3", Name: "cluster3", Command: "karmadactl join cluster3 --cluster-context cluster3"},
	}, rep.Clusters)
}

// TestKarmadaOutputDir: one file per document under NAMESPACE/ (or
// _cluster/), join-clusters.sh, and on the next run the files of objects
// that left the input are removed; a directory fedctl did not write is
// refused.
func TestKarmadaOutputDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "karmada")
	_, errOut, err := run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "replace-missing-key.yaml"), "-f", filepath.Join(rulesDir, "cluster-scoped.yaml"), "--output-dir", dir)
	require.NoError(t, err, errOut)
	assert.Equal(t, []string{
		".fedctl-convert",
		"_cluster/clusteroverridepolicy_clusterrole-reader.yaml",
		"_cluster/clusterpropagationpolicy_clusterrole-reader.yaml",
		"_cluster/clusterrole_reader.yaml",
		"_cluster/namespace_shop.yaml",
		"join-clusters.sh",
		"shop/configmap_settings.yaml",
		"shop/overridepolicy_configmap-settings.yaml",
		"shop/propagationpolicy_configmap-settings.yaml",
	}, listFiles(t, dir))
	assert.Contains(t, errOut, "wrote 7 documents to "+dir+" (8 files)")
	st, err := os.Stat(filepath.Join(dir, "join-clusters.sh"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), st.Mode().Perm())
	script := read(t, filepath.Join(dir, "join-clusters.sh"))
	assert.Contains(t, script, "karmadactl join cluster2 --cluster-context cluster2\n")

	_, _, err = run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "cluster-scoped.yaml"), "--output-dir", dir)
	require.NoError(t, err)
	assert.Equal(t, []string{
		".fedctl-convert",
		"_cluster/clusteroverridepolicy_clusterrole-reader.yaml",
		"_cluster/clusterpropagationpolicy_clusterrole-reader.yaml",
		"_cluster/clusterrole_reader.yaml",
		"join-clusters.sh",
	}, listFiles(t, dir), "the ConfigMap, its policies and the Namespace left the input: their files go, and so does the emptied shop/")

	foreign := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "keep.yaml"), []byte("x: 1\n"), 0o644))
	_, _, err = run(t, threeClusters, "--to", "karmada", "-f", filepath.Join(rulesDir, "cluster-scoped.yaml"), "--output-dir", foreign)
	require.EqualError(t, err, "--output-dir "+foreign+" is not empty and was not written by fedctl convert --to karmada; choose an empty or new directory")
	assert.Equal(t, []string{"keep.yaml"}, listFiles(t, foreign))
}

// TestArgoCD: render's tree without fedctl's markers, the ApplicationSet
// beside it, the registration commands; the tree holds exactly what render
// gives each member.
func TestArgoCD(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "deploy")
	out, errOut, err := run(t, threeClusters, "--to", "argocd", "-f", "../../testdata/examples", "--repo", "https://git.example.com/shop.git", "--path", "deploy", "--output-dir", dir, "-o", "json")
	require.NoError(t, err, errOut)
	files := listFiles(t, dir)
	assert.Contains(t, files, "applicationset.yaml")
	assert.Contains(t, files, "register-clusters.sh")
	assert.Contains(t, files, "cluster1/shop/deployment_web.yaml")
	assert.Contains(t, files, "cluster3/_cluster/namespace_shop.yaml")
	for _, f := range files {
		if strings.HasPrefix(f, "cluster") {
			body := read(t, filepath.Join(dir, f))
			assert.NotContains(t, body, "fedctl.io/", f)
			assert.NotContains(t, body, "kubefed.io/managed", f)
			assert.NotContains(t, body, "managed-by: fedctl", f)
		}
	}
	testutil.AssertGolden(t, []byte(read(t, filepath.Join(dir, "applicationset.yaml"))), filepath.Join(goldenDir, "applicationset.yaml"))
	assert.Equal(t, "#!/bin/sh\n# Registers the members with Argo CD under the names the ApplicationSet uses.\n# Run after argocd login.\nset -e\n"+
		"argocd cluster add cluster1 --name cluster1 --yes\nargocd cluster add cluster2 --name cluster2 --yes\nargocd cluster add cluster3 --name cluster3 --yes\n",
		read(t, filepath.Join(dir, "register-clusters.sh")))

	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, "argocd", rep.To)
	assert.Empty(t, rep.Approximated)
	require.Len(t, rep.Notes, 1)
	assert.Contains(t, rep.Notes[0].Message, "the replica split is written as each member's count")
	assert.Len(t, rep.Clusters, 3)
	assert.Contains(t, errOut, "commit it at deploy in https://git.example.com/shop.git, then kubectl apply -n argocd -f "+filepath.Join(dir, "applicationset.yaml"))

	// The tree is render's: the same files, the markers aside.
	rendered := filepath.Join(t.TempDir(), "rendered")
	ios, _, _, errOut2 := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(threeClusters) }}
	cmd := rendercmd.NewCmdRender(f, nil)
	cmd.SetArgs([]string{"-f", "../../testdata/examples", "--output-dir", rendered})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.Execute(), errOut2.String())
	var want []string
	for _, f := range listFiles(t, rendered) {
		if strings.HasPrefix(f, "cluster") {
			want = append(want, f)
			assert.Equal(t, withoutMarkers(t, read(t, filepath.Join(rendered, f))), parse(t, read(t, filepath.Join(dir, f))), f)
		}
	}
	var trees []string
	for _, f := range files {
		if strings.HasPrefix(f, "cluster") {
			trees = append(trees, f)
		}
	}
	assert.Equal(t, want, trees, "a .fedctl-keep per member included")
	for _, c := range []string{"cluster1", "cluster2", "cluster3"} {
		assert.Contains(t, files, c+"/.fedctl-keep")
	}
}

// argoCDTree converts input (in.yaml) for three members to an Argo CD
// tree in a new directory, which it returns with the standard error.
func argoCDTree(t *testing.T, input string) (dir, errOut string, err error) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "in.yaml")
	require.NoError(t, os.WriteFile(in, []byte(input), 0o600))
	dir = filepath.Join(t.TempDir(), "deploy")
	_, errOut, err = run(t, threeClusters, "--to", "argocd", "-f", in, "--repo", "r", "--path", "deploy", "--output-dir", dir)
	return dir, errOut, err
}

// TestArgoCDMemberWithNothingKeepsItsDirectory: a member the input places
// nothing in keeps its directory (a placeholder Argo CD does not read), so
// that its Application syncs to empty, with allowEmpty, pruning what left
// it, instead of failing on a path that does not exist.
func TestArgoCDMemberWithNothingKeepsItsDirectory(t *testing.T) {
	t.Parallel()
	dir, errOut, err := argoCDTree(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusters: [{name: cluster1}]}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: only-one, namespace: shop}
spec:
  template: {data: {k: v}}
  placement: {clusters: [{name: cluster1}]}
`)
	require.NoError(t, err, errOut)
	files := listFiles(t, dir)
	assert.Contains(t, files, "cluster1/shop/configmap_only-one.yaml")
	assert.Contains(t, files, "cluster2/.fedctl-keep")
	assert.Contains(t, files, "cluster3/.fedctl-keep")
	automated := parse(t, read(t, filepath.Join(dir, "applicationset.yaml")))["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["syncPolicy"].(map[string]any)["automated"]
	assert.Equal(t, map[string]any{"prune": true, "selfHeal": true, "allowEmpty": true}, automated)
}

// withoutMarkers is a rendered file's object without fedctl's markers.
func withoutMarkers(t *testing.T, body string) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(body), &obj))
	return export.Unmarked(obj)
}

func parse(t *testing.T, body string) map[string]any {
	t.Helper()
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(body), &obj))
	return obj
}

// TestValidate: the flags each system needs.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-f", "x.yaml"}, "give --to karmada or --to argocd"},
		{[]string{"-f", "x.yaml", "--to", "flux"}, `--to must be karmada or argocd, got "flux"`},
		{[]string{"-f", "x.yaml", "--to", "argocd", "--output-dir", "d"}, "--to argocd needs --repo URL and --path PATH: where the tree is committed, for the ApplicationSet to point at"},
		{[]string{"-f", "x.yaml", "--to", "argocd", "--repo", "r", "--path", "p"}, "--to argocd writes a tree of files: give --output-dir DIR (the directory committed at --path)"},
		{[]string{"-f", "x.yaml", "--to", "argocd", "--repo", "r", "--path", "p", "--output-dir", "d", "--verify"}, "--verify is for --to karmada; the Argo CD tree is render's output itself"},
		{[]string{"-f", "x.yaml", "--to", "karmada", "--repo", "r"}, "--repo and --path are for --to argocd"},
		{[]string{"-f", "x.yaml", "--to", "karmada", "--project", "p"}, "--project: for --to argocd only"},
		{[]string{"-f", "x.yaml", "--to", "karmada", "--revision", "HEAD", "--name", "x"}, "--revision, --name: for --to argocd only"},
		{[]string{"--to", "karmada"}, "-f is required: a file, a directory, an http(s) URL or - for standard input; or -k DIR for a kustomization"},
		{[]string{"-f", "x.yaml", "--to", "karmada", "-o", "wide"}, `--output must be yaml or json, got "wide"`},
	} {
		_, _, err := run(t, threeClusters, tc.args...)
		require.Error(t, err, tc.args)
		assert.Equal(t, tc.err, err.Error(), tc.args)
		var usage *cmdutil.FlagError
		assert.ErrorAs(t, err, &usage, "a usage error (exit 2): %v", tc.args)
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		out = append(out, filepath.ToSlash(rel))
		return err
	}))
	return out
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// TestRegistrationOfClusterAPIMembers: a member from Cluster API has no
// context; its registration commands write its kubeconfig from the
// management cluster for the user alone, use it, and remove it.
func TestRegistrationOfClusterAPIMembers(t *testing.T) {
	t.Parallel()
	m := members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}}
	assert.Equal(t, "(umask 077; trap 'rm -f web-1.kubeconfig' EXIT; trap 'exit 130' INT TERM HUP; clusterctl get kubeconfig web-1 -n capi --kubeconfig-context mgmt > web-1.kubeconfig && karmadactl join web-1 --cluster-kubeconfig web-1.kubeconfig)",
		karmadaJoin(members.Access{}, m, "web-1"))
	assert.Equal(t, `(umask 077; trap 'rm -f web-1.kubeconfig' EXIT; trap 'exit 130' INT TERM HUP; clusterctl get kubeconfig web-1 -n capi --kubeconfig-context mgmt > web-1.kubeconfig && argocd cluster add "$(kubectl --kubeconfig web-1.kubeconfig config current-context)" --name web-1 --yes --kubeconfig web-1.kubeconfig)`,
		argoCDClusterAdd(members.Access{}, m))
	assert.Equal(t, "karmadactl join eu-1 --cluster-context 'kind eu' --cluster-kubeconfig /k/eu.yaml", karmadaJoin(members.Access{}, members.Member{Name: "eu-1", Context: "kind eu", Kubeconfig: "/k/eu.yaml"}, "eu-1"))
}

// TestArgoCDOrphanAndDNS: an orphaned federated object's member objects
// get Argo CD's sync option Delete=false (kept when pruned, as KubeFed
// keeps them); a DNS record is not converted (exit 3).
func TestArgoCDOrphanAndDNS(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "deploy")
	_, errOut, err := run(t, threeClusters, "--to", "argocd", "-f", filepath.Join(rulesDir, "orphan-retain-dns.yaml"), "--repo", "r", "--path", "deploy", "--output-dir", dir)
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err), errOut)
	web := parse(t, read(t, filepath.Join(dir, "cluster1", "shop", "deployment_web.yaml")))
	assert.Equal(t, map[string]any{"argocd.argoproj.io/sync-options": "Delete=false"}, web["metadata"].(map[string]any)["annotations"])
	svc := parse(t, read(t, filepath.Join(dir, "cluster1", "shop", "service_web.yaml")))
	assert.NotContains(t, svc["metadata"], "annotations", "the Service is not orphaned")
	assert.Contains(t, errOut, `note: ../../testdata/convert/orphan-retain-dns.yaml:18: FederatedDeployment shop/web: kubefed.io/orphan: "true" becomes the member objects' annotation argocd.argoproj.io/sync-options: Delete=false`)
	assert.Contains(t, errOut, "orphan-retain-dns.yaml:35: ServiceDNSRecord shop/web: not converted: Argo CD does not write fedctl's DNSEndpoints")

	// retainReplicas: the replicas are written on create, then left to
	// whoever scales the Deployment (an HPA), as KubeFed leaves them.
	assert.Contains(t, errOut, "orphan-retain-dns.yaml:20: FederatedDeployment shop/web: retainReplicas: true becomes the Applications' ignoreDifferences of /spec/replicas with RespectIgnoreDifferences=true")
	app := parse(t, read(t, filepath.Join(dir, "applicationset.yaml")))["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	assert.Equal(t, []any{map[string]any{"group": "apps", "kind": "Deployment", "namespace": "shop", "name": "web", "jsonPointers": []any{"/spec/replicas"}}}, app["ignoreDifferences"])
	assert.Equal(t, []any{"ServerSideApply=true", "RespectIgnoreDifferences=true"}, app["syncPolicy"].(map[string]any)["syncOptions"])
}

// TestArgoCDWaves: the federation file's rollout waves become the
// ApplicationSet's RollingSync steps over a wave label of each
// Application; the soak has no equivalent (exit 3).
func TestArgoCDWaves(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "deploy")
	_, errOut, err := run(t, filepath.Join(rulesDir, "waves.federation.yaml"), "--to", "argocd", "-f", "../../testdata/examples", "--repo", "https://git.example.com/shop.git", "--path", "deploy", "--output-dir", dir)
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err), errOut)
	testutil.AssertGolden(t, []byte(read(t, filepath.Join(dir, "applicationset.yaml"))), filepath.Join(goldenDir, "applicationset-waves.yaml"))
	appSet := parse(t, read(t, filepath.Join(dir, "applicationset.yaml")))
	spec := appSet["spec"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "RollingSync", "rollingSync": map[string]any{"steps": []any{
		map[string]any{"matchExpressions": []any{map[string]any{"key": "fedctl.io/wave", "operator": "In", "values": []any{"canary"}}}},
		map[string]any{"matchExpressions": []any{map[string]any{"key": "fedctl.io/wave", "operator": "In", "values": []any{"rest"}}}, "maxUpdate": float64(1)},
	}}}, spec["strategy"])
	elements := spec["generators"].([]any)[0].(map[string]any)["list"].(map[string]any)["elements"]
	assert.Equal(t, []any{
		map[string]any{"cluster": "cluster1", "path": "deploy/cluster1", "wave": "canary"},
		map[string]any{"cluster": "cluster2", "path": "deploy/cluster2", "wave": "rest"},
		map[string]any{"cluster": "cluster3", "path": "deploy/cluster3", "wave": "rest"},
	}, elements)
	assert.Contains(t, errOut, "note: ../../testdata/convert/waves.federation.yaml: rollout: the waves become the ApplicationSet's RollingSync steps (label fedctl.io/wave)")
	assert.Contains(t, errOut, "waves.federation.yaml: rollout: soak 60s has no RollingSync equivalent")
}

// TestKarmadaWaves: Karmada has no rollout waves: reported (exit 3).
func TestKarmadaWaves(t *testing.T) {
	t.Parallel()
	_, errOut, err := run(t, filepath.Join(rulesDir, "waves.federation.yaml"), "--to", "karmada", "-f", filepath.Join(rulesDir, "cluster-scoped.yaml"))
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err), errOut)
	assert.Contains(t, errOut, "waves.federation.yaml: rollout: Karmada has no rollout waves: a change reaches every member at once")
}

// TestClusterAPIKubeconfigIsRemovedWhenTheJoinFails: the member's admin
// kubeconfig written for the registration is removed whether the join
// succeeds or not, under the script's set -e too (a failing join ended
// the script before the removal).
func TestClusterAPIKubeconfigIsRemovedWhenTheJoinFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "clusterctl"), []byte("#!/bin/sh\necho 'apiVersion: v1'\n"), 0o755))
	for name, code := range map[string]int{"karmadactl": 1, "argocd": 0} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(fmt.Sprintf("#!/bin/sh\nexit %d\n", code)), 0o755))
	}
	m := members.Member{Name: "web-1", CAPI: &members.CAPI{ManagementContext: "mgmt", Namespace: "capi", Cluster: "web-1"}}
	sh := exec.Command("sh", "-ec", karmadaJoin(members.Access{}, m, "web-1")+"\necho not reached")
	sh.Dir, sh.Env = dir, append(os.Environ(), "PATH="+bin+":/usr/bin:/bin")
	out, err := sh.CombinedOutput()
	require.Error(t, err, "the join failed, and so does the script")
	assert.NotContains(t, string(out), "not reached")
	assert.NoFileExists(t, filepath.Join(dir, "web-1.kubeconfig"), "removed all the same")

	// Interrupted while the join runs (its shell gets SIGTERM): removed.
	require.NoError(t, os.WriteFile(filepath.Join(bin, "karmadactl"), []byte("#!/bin/sh\nkill -TERM $PPID\nsleep 1\n"), 0o755))
	sh = exec.Command("sh", "-ec", karmadaJoin(members.Access{}, m, "web-1"))
	sh.Dir, sh.Env = dir, append(os.Environ(), "PATH="+bin+":/usr/bin:/bin")
	_, err = sh.CombinedOutput()
	require.Error(t, err)
	assert.NoFileExists(t, filepath.Join(dir, "web-1.kubeconfig"), "removed on a signal too")

	sh = exec.Command("sh", "-ec", argoCDClusterAdd(members.Access{}, m))
	sh.Dir, sh.Env = dir, append(os.Environ(), "PATH="+bin+":/usr/bin:/bin")
	out, err = sh.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.NoFileExists(t, filepath.Join(dir, "web-1.kubeconfig"))
}

// TestArgoCDSecretsAreSaid: a Secret's data goes into the tree in clear,
// and the tree is meant for git: a note says so, at the Secret.
func TestArgoCDSecretsAreSaid(t *testing.T) {
	t.Parallel()
	_, errOut, err := argoCDTree(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata: {name: db, namespace: shop}
spec:
  template: {data: {password: czNjcjN0}}
  placement: {clusterSelector: {}}
`)
	require.NoError(t, err, errOut)
	assert.Contains(t, errOut, "in.yaml:6: FederatedSecret shop/db: its data is written in clear into the tree that Argo CD reads from git")
	assert.NotContains(t, errOut, "czNjcjN0")
}

// TestArgoCDRetainWithAnOverride: one ApplicationSet template ignores
// /spec/replicas in every member's Application, so a member whose
// replicas an override sets gets them on create only: said, at the
// object, and approximated (exit 3).
func TestArgoCDRetainWithAnOverride(t *testing.T) {
	t.Parallel()
	_, errOut, err := argoCDTree(t, `apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop}
spec: {placement: {clusterSelector: {}}}
---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedDeployment
metadata: {name: web, namespace: shop}
spec:
  retainReplicas: true
  template: {spec: {replicas: 2}}
  placement: {clusterSelector: {}}
  overrides:
  - clusterName: cluster1
    clusterOverrides: [{path: /spec/replicas, value: 5}]
`)
	assert.Equal(t, ExitApproximated, cmdutil.ExitCodeOf(err), errOut)
	assert.Contains(t, errOut, "in.yaml:10: FederatedDeployment shop/web: retainReplicas: true becomes the Applications' ignoreDifferences of /spec/replicas, in every member: in cluster1, whose replicas an override or a plan sets, Argo CD writes them when it creates the object and then no longer enforces them")
}
