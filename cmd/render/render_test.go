package render

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testutil"
)

const (
	examples   = "../../testdata/examples"
	federation = "../../testdata/federation/three-clusters.yaml"
	goldenDir  = "../../testdata/golden/render"
	// kustomizeProd is an overlay on the examples: namePrefix, commonLabels
	// and patches on federated objects.
	kustomizeProd = "../../testdata/kustomize/prod"
)

// run executes "fedctl render" with args against the three-cluster
// federation file and returns stdout, stderr and the error.
func run(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	ios, in, out, errOut := iostreams.Test()
	in.WriteString(stdin)
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(federation) }}
	cmd := NewCmdRender(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	return out.String(), errOut.String(), err
}

func TestRenderExamples(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"all members as YAML", []string{"-f", examples}, "examples.yaml"},
		{"all members as JSON", []string{"-f", examples, "-o", "json"}, "examples.json"},
		{"one member", []string{"-f", examples, "--cluster", "cluster3"}, "examples-cluster3.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, errOut, err := run(t, "", tt.args...)
			require.NoError(t, err)
			assert.Empty(t, errOut)
			testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, tt.golden))
			again, _, err := run(t, "", tt.args...)
			require.NoError(t, err)
			assert.Equal(t, out, again, "the same input gives the same bytes")
		})
	}
}

func TestRenderFromStdinMatchesFiles(t *testing.T) {
	t.Parallel()
	var all bytes.Buffer
	entries, err := os.ReadDir(examples)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(examples, e.Name()))
		require.NoError(t, err)
		all.WriteString("---\n")
		all.Write(data)
	}
	fromStdin, _, err := run(t, all.String(), "-f", "-")
	require.NoError(t, err)
	fromDir, _, err := run(t, "", "-f", examples)
	require.NoError(t, err)
	assert.Equal(t, fromDir, fromStdin)
}

func TestRenderReportsEveryProblem(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, "", "-f", "../../testdata/manifests/errors")
	require.Error(t, err)
	assert.Empty(t, out, "nothing is printed from an input with errors")
	var lines []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		lines = append(lines, e.Error())
	}
	testutil.AssertGolden(t, []byte(errOut+strings.Join(lines, "\n")+"\n"), filepath.Join(goldenDir, "errors.txt"))
}

func TestRenderOutputDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	_, errOut, err := run(t, "", "-f", examples, "--output-dir", dir)
	require.NoError(t, err)
	assert.Equal(t, "✓ wrote 8 objects for 3 clusters to "+dir+"\n", errOut)
	assert.Equal(t, []string{
		".fedctl-render",
		"cluster1/.fedctl-keep",
		"cluster1/_cluster/namespace_shop.yaml",
		"cluster1/shop/configmap_web-config.yaml",
		"cluster1/shop/deployment_web.yaml",
		"cluster2/.fedctl-keep",
		"cluster2/_cluster/namespace_shop.yaml",
		"cluster2/shop/configmap_web-config.yaml",
		"cluster2/shop/deployment_web.yaml",
		"cluster3/.fedctl-keep",
		"cluster3/_cluster/namespace_shop.yaml",
		"cluster3/shop/deployment_web.yaml",
	}, tree(t, dir))
	data, err := os.ReadFile(filepath.Join(dir, "cluster2", "shop", "deployment_web.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "image: nginx:1.27-alpine")

	// A second run replaces the cluster directories: a stale file goes.
	stale := filepath.Join(dir, "cluster1", "shop", "deployment_old.yaml")
	require.NoError(t, os.WriteFile(stale, []byte("x"), 0o644))
	_, _, err = run(t, "", "-f", examples, "--output-dir", dir)
	require.NoError(t, err)
	assert.NoFileExists(t, stale)

	// The directory of a member that left goes too, and render says so;
	// a file or hidden directory someone put there stays.
	left := filepath.Join(dir, "cluster9", "shop")
	require.NoError(t, os.MkdirAll(left, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(left, "deployment_web.yaml"), []byte("x"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("x"), 0o644))
	_, errOut, err = run(t, "", "-f", examples, "--output-dir", dir)
	require.NoError(t, err)
	assert.Equal(t, "removed "+filepath.Join(dir, "cluster9")+": cluster9 is no longer a member cluster\n✓ wrote 8 objects for 3 clusters to "+dir+"\n", errOut)
	assert.NoDirExists(t, filepath.Join(dir, "cluster9"))
	assert.DirExists(t, filepath.Join(dir, ".git"))
	assert.FileExists(t, filepath.Join(dir, "README.md"))

	// A directory fedctl did not write is never touched.
	foreign := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("x"), 0o644))
	_, _, err = run(t, "", "-f", examples, "--output-dir", foreign)
	require.EqualError(t, err, "--output-dir "+foreign+" is not empty and was not written by fedctl render; choose an empty or new directory")
	assert.FileExists(t, filepath.Join(foreign, "keep.txt"))
}

func TestRenderFlags(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{}, "-f is required: a file, a directory, an http(s) URL or - for standard input; or -k DIR for a kustomization"},
		{[]string{"-f", examples, "-o", "wide"}, `--output must be yaml or json, got "wide"`},
		{[]string{"-f", examples, "--cluster", "cluster9"}, `cluster "cluster9" is not a member (members: cluster1, cluster2, cluster3)`},
		{[]string{"-f", examples, "-o", "json", "--output-dir", "x"}, "if any flags in the group [output output-dir] are set none of the others can be; [output output-dir] were all set"},
		{[]string{"-f", "../../testdata/nope"}, "../../testdata/nope: no such file or directory"},
		{[]string{"-f", examples, "-k", kustomizeProd}, "-f and -k cannot be used together"},
		{[]string{"-f", examples, "-l", "app in (web"}, "-l app in (web: unable to parse requirement: found '', expected: ',' or ')'"},
	} {
		_, _, err := run(t, "", tt.args...)
		assert.EqualError(t, err, tt.wantErr, "args %q", tt.args)
	}
}

func tree(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	require.NoError(t, filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		require.NoError(t, err)
		if !info.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	}))
	sort.Strings(files)
	return files
}

// TestRenderIgnoresInputOrder: the documents in reverse order, in one
// stream, give the same bytes as the directory read in order.
func TestRenderIgnoresInputOrder(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(examples)
	require.NoError(t, err)
	var docs []string
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(examples, e.Name()))
		require.NoError(t, err)
		docs = append(docs, strings.Split(string(data), "\n---\n")...)
	}
	require.Len(t, docs, 4)
	var reversed strings.Builder
	for i := len(docs) - 1; i >= 0; i-- {
		reversed.WriteString("---\n" + docs[i] + "\n")
	}
	fromReversed, _, err := run(t, reversed.String(), "-f", "-")
	require.NoError(t, err)
	fromDir, _, err := run(t, "", "-f", examples)
	require.NoError(t, err)
	assert.Equal(t, fromDir, fromReversed)
}

// TestRenderStdinErrors: errors in standard input name it STDIN, as
// kubectl does, with the line; a missing apiVersion or kind and an
// unknown version of a KubeFed group each say what is wrong (issue 11).
func TestRenderStdinErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	federation := filepath.Join(dir, "federation.yaml")
	require.NoError(t, os.WriteFile(federation, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: [{name: c1}]\n"), 0o600))
	ios, in, out, _ := iostreams.Test()
	in.WriteString("kind: FederatedConfigMap\nmetadata: {name: a, namespace: shop}\n---\n" +
		"apiVersion: types.kubefed.io/v1beta1\nmetadata: {name: b, namespace: shop}\n---\n" +
		"apiVersion: types.kubefed.io/v2\nkind: FederatedDeployment\nmetadata: {name: web, namespace: shop}\n---\n" +
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\n")
	cmd := NewCmdRender(&cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(federation) }}, nil)
	cmd.SetArgs([]string{"-f", "-"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.Execute()
	require.Error(t, err)
	assert.Equal(t, `STDIN:1: FederatedConfigMap shop/a: apiVersion: is missing; federated objects are in types.kubefed.io/v1beta1
STDIN:4: object shop/b: kind: is missing
STDIN:7: FederatedDeployment shop/web: apiVersion: types.kubefed.io/v2 is not a version fedctl reads; FederatedDeployment is read as types.kubefed.io/v1beta1 (or types.kubefed.k8s.io/v1beta1)
STDIN:11: ConfigMap plain: is not a federated object; convert it with "fedctl federate -f -"`, err.Error())
	assert.Empty(t, out.String(), "nothing is rendered from an input with errors")
}

// TestRenderNothingToDoIsAnError: no members, a named federation file that
// does not exist and an input without federated objects fail loudly, each
// with the next step, where a pipeline would otherwise pass on an empty
// output; --allow-empty lets each through.
func TestRenderNothingToDoIsAnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	emptyDir := filepath.Join(dir, "empty")
	require.NoError(t, os.Mkdir(emptyDir, 0o755))
	noMembers := filepath.Join(dir, "none.yaml")
	require.NoError(t, os.WriteFile(noMembers, []byte("apiVersion: fedctl.io/v1alpha1\nkind: Federation\nclusters: []\n"), 0o600))
	missing := filepath.Join(dir, "missing.yaml")
	load := func(path string, named bool) func() (*members.File, error) {
		return func() (*members.File, error) {
			f, err := members.Load(path)
			if f != nil {
				f.Named = named
			}
			return f, err
		}
	}
	render := func(fed func() (*members.File, error), stdin string, args ...string) (string, error) {
		ios, in, out, _ := iostreams.Test()
		in.WriteString(stdin)
		cmd := NewCmdRender(&cmdutil.Factory{IOStreams: ios, Federation: fed}, nil)
		cmd.SetArgs(args)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		return out.String(), err
	}
	for _, tc := range []struct {
		name    string
		fed     func() (*members.File, error)
		stdin   string
		args    []string
		wantErr string
	}{
		{"no members", load(noMembers, true), "", []string{"-f", examples},
			`no member clusters in ` + noMembers + `; add one with "fedctl join NAME --cluster-context CONTEXT" (or pass --allow-empty)`},
		{"a named federation file that does not exist", load(missing, true), "", []string{"-f", examples},
			`federation file ` + missing + ` does not exist; check --config and FEDCTL_CONFIG, or create it with "fedctl join NAME --cluster-context CONTEXT --config ` + missing + `"`},
		{"the default federation file missing is only an empty federation", load(missing, false), "", []string{"-f", examples},
			`no member clusters in ` + missing + `; add one with "fedctl join NAME --cluster-context CONTEXT" (or pass --allow-empty)`},
		{"an empty directory", load(federation, true), "", []string{"-f", emptyDir},
			`-f ` + emptyDir + ` holds no federated objects; check the -f path, or pass --allow-empty if that is what you mean`},
		{"empty standard input", load(federation, true), "", []string{"-f", "-"},
			`-f STDIN holds no federated objects; check the -f path, or pass --allow-empty if that is what you mean`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, err := render(tc.fed, tc.stdin, tc.args...)
			require.EqualError(t, err, tc.wantErr)
			assert.Empty(t, out)
			out, err = render(tc.fed, tc.stdin, append(tc.args, "--allow-empty")...)
			require.NoError(t, err, "--allow-empty")
			assert.Empty(t, out, "nothing to render, and no error")
		})
	}
}

// TestRenderKustomize: -k builds the kustomization with krusty and renders
// its output; kustomize's namePrefix, commonLabels and patches work on
// federated objects (and the RSP, renamed with its FederatedDeployment,
// still schedules it). kustomize's notice that commonLabels is deprecated
// is a warning of fedctl's on the command's stderr (issue 11).
func TestRenderKustomize(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, "", "-k", kustomizeProd)
	require.NoError(t, err)
	assert.Equal(t, "warning: kustomization "+kustomizeProd+": 'commonLabels' is deprecated. Please use 'labels' instead. Run 'kustomize edit fix' to update your Kustomization automatically.\n", errOut)
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "kustomize-prod.yaml"))

	// commonLabels labelled every federated object, so -l selects them all.
	selected, _, err := run(t, "", "-k", kustomizeProd, "-l", "stage=prod")
	require.NoError(t, err)
	assert.Equal(t, out, selected)
}

// TestRenderKustomizeErrors: fedctl's own decoder reads kustomize's output,
// so its errors name the kustomization and the line in the built output
// (kustomize keeps no source positions) and the file the resource came
// from (kustomize tracks that), with the object's name.
func TestRenderKustomizeErrors(t *testing.T) {
	t.Parallel()
	dir := "../../testdata/kustomize/broken"
	_, _, err := run(t, "", "-k", dir)
	assert.EqualError(t, err, dir+` (kustomize output of `+dir+`/configmap.yaml):7: FederatedConfigMap shop/test-settings: spec: unknown field "placment" (did you mean "placement"?)`)

	_, _, err = run(t, "", "-k", "../../testdata/nope")
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "-k ../../testdata/nope: "), err.Error())
}

// TestRenderKustomizeInterrupted: a build that hangs (a remote resource
// whose server never answers) ends when the command's context does, as
// Ctrl-C ends it (cmd.Main), with context.Canceled, which cmd.Main reports
// as "error: interrupted", exit 1.
func TestRenderKustomizeInterrupted(t *testing.T) {
	t.Parallel()
	requested := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		close(requested)
		<-r.Context().Done()
	}))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte("resources: ["+srv.URL+"/cm.yaml]\n"), 0o600))
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-requested
		cancel()
	}()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) { return members.Load(federation) }}
	cmd := NewCmdRender(f, nil)
	cmd.SetArgs([]string{"-k", dir})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	start := time.Now()
	err := cmd.ExecuteContext(ctx)
	assert.Less(t, time.Since(start), 5*time.Second)
	require.ErrorIs(t, err, context.Canceled)
	assert.Empty(t, out.String())
	assert.Empty(t, errOut.String())
	srv.CloseClientConnections() // ends the fetch the build is left with
	srv.Close()
}

// TestRenderSelector: -l keeps the federated objects whose own labels
// match; the FederatedNamespace left out still places the objects in its
// namespace, and a selection of nothing is the "no objects" error naming
// the selector, unless --allow-empty.
func TestRenderSelector(t *testing.T) {
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
	all, _, err := run(t, "", "-f", dir)
	require.NoError(t, err)
	web, errOut, err := run(t, "", "-f", dir, "-l", "app=web")
	require.NoError(t, err)
	assert.Empty(t, errOut, "no NamespaceNotFederated: the unselected FederatedNamespace still places")
	var want []string
	for _, doc := range strings.Split(all, "---\n") {
		if strings.Contains(doc, "kind: Deployment") {
			want = append(want, doc)
		}
	}
	require.Len(t, want, 3)
	assert.Equal(t, "---\n"+strings.Join(want, "---\n"), web, "the Deployment in every member, with the RSP's replicas")

	_, _, err = run(t, "", "-f", dir, "-l", "app=nothing")
	assert.EqualError(t, err, "-f "+dir+" holds no federated objects matching -l app=nothing; check the -f path and the selector, or pass --allow-empty if that is what you mean")
	out, _, err := run(t, "", "-f", dir, "-l", "app=nothing", "--allow-empty")
	require.NoError(t, err)
	assert.Empty(t, out)
}

// TestRenderURL: -f URL reads a manifest over HTTP as kubectl does, named
// by the URL in errors; a status other than 2xx is an error naming both.
func TestRenderURL(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.FileServer(http.Dir(examples))) // loopback only
	t.Cleanup(srv.Close)
	var urls []string
	for _, e := range []string{"00-namespace.yaml", "10-configmap.yaml", "20-deployment.yaml"} {
		urls = append(urls, "-f", srv.URL+"/"+e)
	}
	fromURLs, _, err := run(t, "", urls...)
	require.NoError(t, err)
	fromDir, _, err := run(t, "", "-f", examples)
	require.NoError(t, err)
	assert.Equal(t, fromDir, fromURLs)

	_, _, err = run(t, "", "-f", srv.URL+"/missing.yaml")
	assert.EqualError(t, err, srv.URL+"/missing.yaml: the server answered 404 Not Found")
}

// TestRenderFederationV1: Federation v1 input (a plain Namespace, a
// Deployment and a ReplicaSet split by their preferences annotations)
// renders through the same model as KubeFed's: the Namespace everywhere,
// the replicas split by the planner, the annotation not sent to members.
func TestRenderFederationV1(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, "", "-f", "../../testdata/manifests/fedv1")
	require.NoError(t, err)
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "fedv1.yaml"))
	assert.NotContains(t, out, "federation.kubernetes.io", "the preferences annotation is not sent to members")
	assert.Equal(t, "Warning: ../../testdata/manifests/fedv1/app.yaml:11: FederatedDeployment shop/web: spec.template.metadata: annotations of the template are not propagated (as in KubeFed); use overrides to set them per cluster\n", errOut,
		"the workload's other annotations follow KubeFed's template rule")
	for _, want := range []string{"# Source: cluster1\napiVersion: apps/v1\nkind: Deployment", "  replicas: 4\n", "  replicas: 1\n"} {
		assert.Contains(t, out, want)
	}
}

// TestRenderOverrideSelectors: overrides by cluster selector, with a named
// entry after them (fedctl's extension; kubefed#581, #1462).
func TestRenderOverrideSelectors(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, "", "-f", "../../testdata/manifests/override-selectors", "-o", "json")
	require.NoError(t, err)
	assert.Empty(t, errOut)
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "override-selectors.json"))
	var r struct {
		Clusters []struct {
			Name    string
			Objects []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	type got struct {
		image, region string
		replicas      any
	}
	want := map[string]got{
		"cluster1": {"nginx:1.27-hardened", "eu", float64(5)},
		"cluster2": {"nginx:1.27-pinned", "eu", float64(5)},
		"cluster3": {"nginx:1.27", "", float64(3)},
	}
	for _, c := range r.Clusters {
		for _, o := range c.Objects {
			if o["kind"] != "Deployment" {
				continue
			}
			spec := o["spec"].(map[string]any)
			image := spec["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)["image"]
			region, _ := o["metadata"].(map[string]any)["annotations"].(map[string]any)["example.com/region"].(string)
			assert.Equal(t, want[c.Name], got{image.(string), region, spec["replicas"]}, c.Name)
		}
	}
}

// TestRenderOverrideSelectorsWithRSP: a ReplicaSchedulingPreference owns
// /spec/replicas, as over named overrides in KubeFed: a selector entry's
// replicas give way to the plan, its other overrides stay.
func TestRenderOverrideSelectorsWithRSP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	app, err := os.ReadFile("../../testdata/manifests/override-selectors/app.yaml")
	require.NoError(t, err)
	rsp := "---\napiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web, namespace: shop}\nspec:\n  targetKind: FederatedDeployment\n  totalReplicas: 6\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), append(app, rsp...), 0o600))
	out, _, err := run(t, "", "-f", dir, "--cluster", "cluster1")
	require.NoError(t, err)
	assert.Contains(t, out, "  replicas: 2\n", "the plan (6 over 3 members), not the selector's 5")
	assert.Contains(t, out, "image: nginx:1.27-hardened", "the selector's other overrides stay")

	// A misspelt field is still caught by the strict decoder.
	bad := strings.Replace(string(app), "clusterSelector:\n      matchLabels: {tier: prod}", "clusterSelectr:\n      matchLabels: {tier: prod}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(bad), 0o600))
	_, _, err = run(t, "", "-f", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "clusterSelectr" (did you mean "clusterSelector"?)`)
}

// TestRenderContainerOverrides: typed overrides by container name (fedctl's
// extension): a tag that keeps the digest, env and resources set by name
// and key, a CronJob's nested pod template; a misspelt field is caught.
func TestRenderContainerOverrides(t *testing.T) {
	t.Parallel()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) {
		return members.Load("../../testdata/federation/three-clusters-cronjobs.yaml")
	}}
	cmd := NewCmdRender(f, nil)
	cmd.SetArgs([]string{"-f", "../../testdata/manifests/container-overrides"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.Execute())
	assert.Empty(t, errOut.String())
	testutil.AssertGolden(t, out.Bytes(), filepath.Join(goldenDir, "container-overrides.yaml"))
	for _, want := range []string{
		"image: nginx:1.27-eu@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
		"value: debug", "memory: 512Mi", "- s3://eu-backups",
	} {
		assert.Contains(t, out.String(), want)
	}

	dir := t.TempDir()
	app, err := os.ReadFile("../../testdata/manifests/container-overrides/app.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(strings.Replace(string(app), "      tag: 1.27-eu", "      tags: 1.27-eu", 1)), 0o600))
	_, _, err = run(t, "", "-f", dir)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown field "tags" (did you mean "tag"?)`)
}

// TestRenderKarmada: Karmada input (plain manifests, PropagationPolicies
// and an OverridePolicy) renders what Karmada would create in each member:
// the Deployment divided 1:2:3, the us member's image from its mirror,
// the Service in the European members only, annotations kept. Members'
// regions come from the federation file.
func TestRenderKarmada(t *testing.T) {
	t.Parallel()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{IOStreams: ios, Federation: func() (*members.File, error) {
		return members.Load("../../testdata/federation/three-regions.yaml")
	}}
	cmd := NewCmdRender(f, nil)
	cmd.SetArgs([]string{"-f", "../../testdata/karmada"})
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.Execute())
	assert.Empty(t, errOut.String())
	testutil.AssertGolden(t, out.Bytes(), filepath.Join(goldenDir, "karmada.yaml"))
	for _, want := range []string{"  replicas: 1\n", "  replicas: 2\n", "  replicas: 3\n", "image: mirror.us.example.com/store/api:1.4.2"} {
		assert.Contains(t, out.String(), want)
	}
	assert.NotContains(t, out.String(), "# Source: cluster3\napiVersion: v1\nkind: Service", "no Service in the us member")
}

// TestRenderMixedDialects: KubeFed, Federation v1 and Karmada input in one
// set render together: the Namespace (read by Federation v1, which takes
// plain Namespaces beside its workloads) places the KubeFed ConfigMap in
// it, the Karmada Deployment is divided over the prod members, the
// ReplicaSet split by its annotation.
func TestRenderMixedDialects(t *testing.T) {
	t.Parallel()
	out, errOut, err := run(t, "", "-f", "../../testdata/manifests/mixed")
	require.NoError(t, err)
	assert.Empty(t, errOut)
	testutil.AssertGolden(t, []byte(out), filepath.Join(goldenDir, "mixed.yaml"))
	for _, want := range []string{"# Source: cluster3\napiVersion: v1\ndata:\n  mode: live\nkind: ConfigMap", "kind: ReplicaSet", "  replicas: 2\n"} {
		assert.Contains(t, out, want)
	}
	assert.Equal(t, 1, strings.Count(out, "kind: ConfigMap"), "the KubeFed ConfigMap goes to the staging member only")
	assert.NotContains(t, out, "# Source: cluster3\napiVersion: apps/v1\nkind: Deployment", "the Karmada Deployment stays on the prod members")
}
