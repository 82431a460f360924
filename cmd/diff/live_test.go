package diff

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/fedctl/fedctl/cmd/apply"
	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func federationOf() *members.Federation {
	fed := members.New()
	for _, c := range []string{"cluster1", "cluster2"} {
		_ = fed.Put(members.Member{Name: c}, false)
	}
	return fed
}

func factory(t *testing.T, fed *members.Federation) (*cmdutil.Factory, func() (string, string)) {
	return factoryVia(t, fed, testenv.Require(t, env).Kubeconfig)
}

// factoryVia is factory with the members' contexts read from kubeconfig.
func factoryVia(t *testing.T, fed *members.Federation, kubeconfig string) (*cmdutil.Factory, func() (string, string)) {
	testenv.Require(t, env)
	ios, _, out, errOut := iostreams.Test()
	return &cmdutil.Factory{
		IOStreams: ios,
		Federation: func() (*members.File, error) {
			return &members.File{Path: filepath.Join(t.TempDir(), "federation.yaml"), Federation: fed}, nil
		},
		Access: func() (members.Access, error) { return members.Access{Kubeconfig: kubeconfig}, nil },
	}, func() (string, string) { return out.String(), errOut.String() }
}

type diffRun struct {
	out, errOut string
	code        int // as cmd.Main would exit
	err         error
}

// runDiff runs "fedctl diff ARGS" with the default diff program.
func runDiff(t *testing.T, fed *members.Federation, args ...string) diffRun {
	t.Helper()
	return runDiffVia(t, fed, testenv.Require(t, env).Kubeconfig, args...)
}

// runDiffVia is runDiff with the members' contexts read from kubeconfig.
func runDiffVia(t *testing.T, fed *members.Federation, kubeconfig string, args ...string) diffRun {
	t.Helper()
	t.Setenv("FEDCTL_EXTERNAL_DIFF", "")
	t.Setenv("KUBECTL_EXTERNAL_DIFF", "")
	f, output := factoryVia(t, fed, kubeconfig)
	cmd := NewCmdDiff(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	err := cmd.ExecuteContext(context.Background())
	r := diffRun{err: err}
	r.out, r.errOut = output()
	var exitErr *cmdutil.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		r.code = exitErr.Code
	default:
		r.code = -1
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", r.out, r.errOut)
	return r
}

func runApply(t *testing.T, fed *members.Federation, args ...string) {
	t.Helper()
	f, _ := factory(t, fed)
	cmd := apply.NewCmdApply(f, nil)
	cmd.SetArgs(args)
	cmd.SilenceErrors, cmd.SilenceUsage = true, true
	require.NoError(t, cmd.ExecuteContext(context.Background()))
}

func client(t *testing.T, cluster string) dynamic.Interface {
	t.Helper()
	cfg, err := testenv.Require(t, env).RESTConfig(cluster)
	require.NoError(t, err)
	c, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	return c
}

func configMapData(t *testing.T, cluster, ns, name string) (string, error) {
	t.Helper()
	obj, err := client(t, cluster).Resource(cmGVR).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	v, _, _ := unstructured.NestedString(obj.Object, "data", "k")
	return v, nil
}

func manifests(ns string, docs ...string) string {
	return fmt.Sprintf(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: %s, namespace: %s}
spec:
  placement: {clusterSelector: {}}
`, ns, ns) + strings.Join(docs, "")
}

func configMap(ns, name, value, placement string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata: {name: %s, namespace: %s}
spec:
  template: {data: {k: %q}}
  placement: %s
`, name, ns, value, placement)
}

func secretDoc(ns, name, base64Value string) string {
	return fmt.Sprintf(`---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedSecret
metadata: {name: %s, namespace: %s}
spec:
  template: {data: {password: %s}}
  placement: {clusterSelector: {}}
`, name, ns, base64Value)
}

const everywhere = "{clusterSelector: {}}"

func write(t *testing.T, dir, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "manifests.yaml"), []byte(content), 0o600))
}

// TestDiffLive: exit 0 when nothing differs; 1 with a unified diff per
// cluster and object (changes, additions, de-placements, Secret values
// masked) when something does; drift by another writer shows; nothing in
// any member changes.
func TestDiffLive(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diff"
	// "aHVudGVyMg==" is hunter2, "czNjcjN0" is s3cr3t
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere), configMap(ns, "gone", "v1", everywhere), secretDoc(ns, "db", "aHVudGVyMg==")))
	runApply(t, fed, "-f", dir)

	r := runDiff(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assert.Empty(t, r.out, "nothing differs")

	// a change, a de-placement from cluster2, a new object, a new password
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v2", everywhere), configMap(ns, "gone", "v1", "{clusters: [{name: cluster1}]}"),
		configMap(ns, "new", "v1", everywhere), secretDoc(ns, "db", "czNjcjN0")))
	r = runDiff(t, fed, "-f", dir)
	assert.Equal(t, 1, r.code, "differences found: %v", r.err)
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Contains(t, r.out, "/LIVE/"+c+"_v1.ConfigMap.diff.cfg\t")
		assert.Contains(t, r.out, "/MERGED/"+c+"_v1.Secret.diff.db\t")
	}
	assert.Equal(t, 2, strings.Count(r.out, "-  k: v1\n+  k: v2\n"), "cfg changes in both clusters")
	assert.Equal(t, 2, strings.Count(r.out, "-  password: '*** (before)'\n+  password: '*** (after)'\n"), "a changed Secret value shows, masked")
	assert.NotContains(t, r.out, "aHVudGVyMg==")
	assert.NotContains(t, r.out, "czNjcjN0")
	assert.NotContains(t, r.out, "managedFields")
	assert.NotContains(t, r.out, "resourceVersion")
	assert.NotContains(t, r.out, "fedctl.io/applied-hash")
	assert.Contains(t, r.out, "/LIVE/cluster2_v1.ConfigMap.diff.gone\t", "de-placed from cluster2: shown deleted")
	assert.NotContains(t, r.out, "cluster1_v1.ConfigMap.diff.gone", "still placed in cluster1 and unchanged")
	assert.Contains(t, r.out, "+++ ")
	assert.Contains(t, r.out, "/MERGED/cluster1_v1.ConfigMap.diff.new\t", "new: shown added")
	for _, c := range []string{"cluster1", "cluster2"} {
		v, err := configMapData(t, c, ns, "cfg")
		require.NoError(t, err)
		assert.Equal(t, "v1", v, "nothing changed in %s", c)
		_, err = configMapData(t, c, ns, "new")
		assert.True(t, apierrors.IsNotFound(err), "nothing created in %s", c)
	}
	_, err := configMapData(t, "cluster2", ns, "gone")
	require.NoError(t, err, "nothing deleted")

	// back to the applied input; someone edits cfg in cluster1
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere), configMap(ns, "gone", "v1", everywhere), secretDoc(ns, "db", "aHVudGVyMg==")))
	obj, err := client(t, "cluster1").Resource(cmGVR).Namespace(ns).Get(context.Background(), "cfg", metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, unstructured.SetNestedField(obj.Object, "edited", "data", "k"))
	_, err = client(t, "cluster1").Resource(cmGVR).Namespace(ns).Update(context.Background(), obj, metav1.UpdateOptions{FieldManager: "kubectl-edit"})
	require.NoError(t, err)

	r = runDiff(t, fed, "-f", dir)
	assert.Equal(t, 2, r.code, "the dry run conflicts: an error")
	assert.Contains(t, r.errOut, `cluster cluster1: ConfigMap diff/cfg: Apply failed with 1 conflict: conflict with "kubectl-edit"`)
	assert.Contains(t, r.errOut, "--force-conflicts")

	r = runDiff(t, fed, "-f", dir, "--force-conflicts")
	assert.Equal(t, 1, r.code, "%v", r.err)
	assert.Equal(t, 1, strings.Count(r.out, "-  k: edited\n+  k: v1\n"), "the drift shows, in cluster1 only")
	assert.NotContains(t, r.out, "cluster2_")
	v, err := configMapData(t, "cluster1", ns, "cfg")
	require.NoError(t, err)
	assert.Equal(t, "edited", v, "--force-conflicts in a diff takes nothing over")
}

// TestDiffPruneAndUnreachableMember: with --prune --applyset, the objects
// a prune would delete show as deleted; a member that cannot be reached
// makes the whole diff an error, after the other member's differences.
func TestDiffPruneAndUnreachableMember(t *testing.T) {
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diffprune"
	prune := []string{"--prune", "--applyset", "configmaps/set", "-n", ns}
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere), configMap(ns, "old", "v1", everywhere)))
	runApply(t, fed, append([]string{"-f", dir}, prune...)...)

	r := runDiff(t, fed, append([]string{"-f", dir}, prune...)...)
	assert.Equal(t, 0, r.code, "nothing differs, the parent included: %v", r.err)
	// without -n the parent is found where it is (issue 11), and said
	r = runDiff(t, fed, "-f", dir, "--prune", "--applyset", "configmaps/set")
	assert.Equal(t, 0, r.code, "the same set as with -n: %v", r.err)
	assert.Contains(t, r.errOut, "ApplySet set: using namespace diffprune, where its parent ConfigMap set is (cluster1, cluster2); give -n to choose\n")

	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere)))
	r = runDiff(t, fed, append([]string{"-f", dir}, prune...)...)
	assert.Equal(t, 1, r.code, "%v", r.err)
	assert.NotContains(t, r.out, "diffprune.cfg", "unchanged")
	assert.NotContains(t, r.out, "diffprune.set", "the parent lists the same kinds")
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Contains(t, r.out, "/LIVE/"+c+"_v1.ConfigMap.diffprune.old\t")
		_, err := configMapData(t, c, ns, "old")
		require.NoError(t, err, "nothing pruned in %s", c)
	}

	require.NoError(t, e.StopCluster("cluster2"))
	defer func() { require.NoError(t, e.StartCluster(context.Background(), "cluster2")) }()
	r = runDiff(t, fed, append([]string{"-f", dir, "--timeout", "10s"}, prune...)...)
	assert.Equal(t, 2, r.code, "an unreachable member is an error")
	assert.Contains(t, r.out, "/LIVE/cluster1_v1.ConfigMap.diffprune.old\t", "cluster1's differences are printed first")
	assert.Contains(t, r.errOut, "cluster cluster2: ")
	assert.Contains(t, r.errOut, "refused the connection")
	assert.EqualError(t, r.err, "cannot compare everything: 1 problem(s) in member cluster(s) cluster2")
}

// TestDiffNewNamespace: before the first apply, the Namespace and the
// objects in it show as added, though a server-side dry run creates no
// Namespace for the objects to be checked in.
func TestDiffNewNamespace(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diffnew"
	write(t, dir, manifests(ns, configMap(ns, "cfg", "v1", everywhere)))
	r := runDiff(t, fed, "-f", dir, "--prune", "--applyset", "set", "-n", ns)
	assert.Equal(t, 1, r.code, "%v", r.err)
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Contains(t, r.out, "+++ ")
		assert.Contains(t, r.out, "/MERGED/"+c+"_v1.Namespace.."+ns+"\t")
		assert.Contains(t, r.out, "/MERGED/"+c+"_v1.ConfigMap."+ns+".cfg\t")
		assert.Contains(t, r.out, "/MERGED/"+c+"_v1.Secret."+ns+".set\t", "the ApplySet parent is added with its namespace")
		_, err := client(t, c).Resource(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}).Get(context.Background(), ns, metav1.GetOptions{})
		assert.True(t, apierrors.IsNotFound(err), "nothing created in %s: %v", c, err)
	}
	assert.Contains(t, r.out, "+    applyset.kubernetes.io/part-of: applyset-", "objects carry the set's label")
}
