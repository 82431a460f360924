package apply

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/propagate"
	"github.com/fedctl/fedctl/pkg/testenv"
)

var secretGVR = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}

// pruneSetID is the ID kubectl gives the ApplySet whose parent is the
// Secret "shop" in namespace "prune", computed outside fedctl:
// printf %s shop.prune.Secret. | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '='
const pruneSetID = "applyset-0TP2CNaxBahN5gGmzFRTqSBkVA6qmI5O8CKaNMbItPk-v1"

// TestApplyPruneApplySet: --prune --applyset keeps a kubectl-readable
// ApplySet in every member and deletes what left the input, never what
// fedctl did not create, and not more than --max-deletions; dry runs of
// both kinds show the deletions and change nothing.
func TestApplyPruneApplySet(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "prune"
	prune := []string{"-f", dir, "--prune", "--applyset", "shop", "-n", ns}
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+configMapDoc(ns, "extra", "v1", allClusters, "")+
		deploymentDoc(ns, "web", "nginx:1.27", 1, "", allClusters, ""))
	r := runApply(t, fed, prune...)
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", ns, "extra", propagate.Created)

	// what kubectl looks at: the parent's id label and annotations, and
	// the part-of label on the objects
	for _, c := range clusterNames {
		parent := mustGet(t, c, secretGVR, ns, "shop")
		assert.Equal(t, pruneSetID, parent.GetLabels()[propagate.ApplySetIDLabel], c)
		assert.Equal(t, "ConfigMap,Deployment.apps,Namespace", parent.GetAnnotations()[propagate.ApplySetGroupKindsAnnotation], c)
		assert.Equal(t, "", parent.GetAnnotations()[propagate.ApplySetNamespacesAnnotation], "every object is in the parent's namespace or cluster-scoped")
		assert.Equal(t, "fedctl/dev", parent.GetAnnotations()[propagate.ApplySetToolingAnnotation])
		members, err := client(t, c).Resource(cmGVR).Namespace(ns).List(context.Background(), metav1.ListOptions{LabelSelector: federation.ApplySetPartOfLabel + "=" + pruneSetID})
		require.NoError(t, err)
		assert.Len(t, members.Items, 2, "cfg and extra in %s", c)
	}
	// someone else's object, labelled as part of the set: never fedctl's
	// to delete
	createObject(t, "cluster1", cmGVR, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "theirs", "namespace": ns, "labels": map[string]any{federation.ApplySetPartOfLabel: pruneSetID}}}, "kubectl")

	// extra and web leave the input
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))

	// The guard fails the deletions in every member, while the rest of
	// each member is done (unchanged): some objects failed, exit 3.
	r = runApply(t, fed, append(prune, "--max-deletions", "1")...)
	assertPartial(t, r.err, "cluster1", "cluster2", "cluster3")
	for _, c := range clusterNames {
		o := r.object(c, "Deployment", ns, "web")
		assert.Equal(t, propagate.Failed, o.Action)
		assert.Equal(t, propagate.ReasonTooManyDeletions, o.Reason, "withheld, not pruned")
		assert.Equal(t, "not deleted: 2 objects would be deleted in this cluster, more than --max-deletions=1; check the input, then raise --max-deletions to allow it", o.Error)
		assert.Zero(t, r.requests.counts[c]["DELETE"], c)
		mustGet(t, c, deployGVR, ns, "web")
	}
	assert.Contains(t, r.errOut, "    failed Deployment prune/web: not deleted: 2 objects would be deleted in this cluster, more than --max-deletions=1")

	for _, dry := range []string{"server", "client"} {
		r = runApply(t, fed, append(prune, "--dry-run="+dry)...)
		require.NoError(t, r.err, dry)
		assertAll(t, r, "ConfigMap", ns, "extra", propagate.Deleted)
		assertAll(t, r, "Deployment", ns, "web", propagate.Deleted)
		assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Unchanged)
		for _, c := range clusterNames {
			mustGet(t, c, cmGVR, ns, "extra")
			if dry == "client" {
				assert.Zero(t, r.requests.writes(c), "--dry-run=client sends no write to %s", c)
			}
		}
	}

	r = runApply(t, fed, prune...)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		for _, gone := range []struct {
			gvr  schema.GroupVersionResource
			name string
		}{{cmGVR, "extra"}, {deployGVR, "web"}} {
			_, err := get(t, c, gone.gvr, ns, gone.name)
			assert.True(t, apierrors.IsNotFound(err), "%s %s pruned in %s: %v", gone.gvr.Resource, gone.name, c, err)
		}
		assert.Equal(t, propagate.ReasonPruned, r.object(c, "ConfigMap", ns, "extra").Reason)
		assert.Equal(t, "ConfigMap,Namespace", mustGet(t, c, secretGVR, ns, "shop").GetAnnotations()[propagate.ApplySetGroupKindsAnnotation], c)
	}
	assert.Equal(t, propagate.Action(""), r.action("cluster1", "ConfigMap", ns, "theirs"), "not fedctl's: not even considered")
	mustGet(t, "cluster1", cmGVR, ns, "theirs")

	// the next run has nothing to do
	r = runApply(t, fed, prune...)
	require.NoError(t, r.err)
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.writes(c), "writes to %s: %v", c, r.requests.counts[c])
		assert.Equal(t, 2, r.requests.lists[c], "one LIST per type (Namespaces, ConfigMaps) in %s", c)
		t.Logf("no-op re-apply with --prune, %s: %d requests %v", c, r.requests.total(c), r.requests.counts[c])
	}

	// a federated object marked hands-off in a member is kept when it
	// leaves the input
	update(t, "cluster2", cmGVR, ns, "cfg", "kubectl-label", func(u *unstructured.Unstructured) {
		labels := u.GetLabels()
		labels[federation.ManagedLabel] = "false"
		u.SetLabels(labels)
	})
	write(t, dir, namespaceDoc(ns))
	r = runApply(t, fed, prune...)
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Skipped, r.action("cluster2", "ConfigMap", ns, "cfg"))
	mustGet(t, "cluster2", cmGVR, ns, "cfg")
	assert.Equal(t, propagate.Deleted, r.action("cluster1", "ConfigMap", ns, "cfg"))
}

// cachedKubectl is the kubectl that make testbin builds into the test binary
// cache; tests do not build it themselves (see testenv.EnsureKubectl).
func cachedKubectl(t *testing.T) string {
	t.Helper()
	dir := os.Getenv(testenv.TestbinDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "testbin")
	}
	p := filepath.Join(dir, "k8s-"+testenv.KubernetesVersion, "kubectl")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("no kubectl at %s (make testbin builds it): %v", p, err)
	}
	return p
}

// TestApplySetReadByKubectl: kubectl itself reads fedctl's ApplySet. It
// refuses to take over a set another tool manages, naming fedctl from the
// tooling annotation; once the annotation names kubectl, its server-side
// dry run accepts the parent's id label (checked against kubectl's own
// formula), lists the kinds of contains-group-kinds and finds the objects
// by their part-of label: it would prune them.
func TestApplySetReadByKubectl(t *testing.T) {
	kubectl := cachedKubectl(t)
	e := testenv.Require(t, env)
	fed := federationOf()
	dir := t.TempDir()
	const ns = "bykubectl"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	require.NoError(t, runApply(t, fed, "-f", dir, "--prune", "--applyset", "set", "-n", ns).err)

	plain := filepath.Join(t.TempDir(), "cm.yaml")
	require.NoError(t, os.WriteFile(plain, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain, namespace: "+ns+"}\n"), 0o600))
	kubectlApply := func(args ...string) (string, error) {
		cmd := exec.Command(kubectl, append([]string{"--kubeconfig", e.Kubeconfig, "--context", "cluster1", "apply", "--server-side",
			"--prune", "--applyset=set", "-n", ns, "-f", plain}, args...)...)
		cmd.Env = append(os.Environ(), "KUBECTL_APPLYSET=true")
		out, err := cmd.CombinedOutput()
		t.Logf("kubectl: %s", out)
		return string(out), err
	}
	out, err := kubectlApply()
	require.Error(t, err, "kubectl must not take over fedctl's set")
	assert.Contains(t, out, `is managed by tooling "fedctl" instead of "kubectl"`)

	setTooling := func(value string) {
		patch := []byte(`{"metadata":{"annotations":{"` + propagate.ApplySetToolingAnnotation + `":"` + value + `"}}}`)
		_, err := client(t, "cluster1").Resource(secretGVR).Namespace(ns).Patch(context.Background(), "set", types.MergePatchType, patch, metav1.PatchOptions{})
		require.NoError(t, err)
	}
	setTooling("kubectl/" + testenv.KubernetesVersion)
	defer setTooling("fedctl/dev")
	out, err = kubectlApply("--dry-run=server")
	require.NoError(t, err, out)
	assert.Contains(t, out, "configmap/cfg pruned (server dry run)")
	assert.Contains(t, out, "namespace/"+ns+" pruned (server dry run)")
	mustGet(t, "cluster1", cmGVR, ns, "cfg")
}

// TestApplyServerDryRunNewNamespace: a server-side dry run creates no
// Namespace, so the objects that go in a new one are reported skipped, not
// failed, and nothing is created.
func TestApplyServerDryRunNewNamespace(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "drynew"
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, ""))
	r := runApply(t, fed, "-f", dir, "--dry-run=server", "--prune", "--applyset", "set", "-n", ns)
	require.NoError(t, r.err)
	assertAll(t, r, "Namespace", "", ns, propagate.Created)
	assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Skipped)
	assert.Equal(t, propagate.ReasonNamespaceNotCreated, r.object("cluster1", "ConfigMap", ns, "cfg").Reason)
	assert.Contains(t, r.errOut, "skipped ConfigMap drynew/cfg: its namespace is not created in a dry run, so it cannot be checked")
	for _, c := range clusterNames {
		_, err := get(t, c, nsGVR, "", ns)
		assert.True(t, apierrors.IsNotFound(err), "nothing created in %s: %v", c, err)
	}
}

// TestApplyPruneEmptyInput: an input without federated objects (a wrong -f
// path in a CI job) with --prune is refused before any request, since it
// would delete the whole set; --allow-empty lets it through, and the
// deletion guard still holds.
func TestApplyPruneEmptyInput(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "pruneempty"
	prune := []string{"-f", dir, "--prune", "--applyset", "app", "-n", ns}
	write(t, dir, namespaceDoc(ns)+configMapDoc(ns, "cfg", "v1", allClusters, "")+configMapDoc(ns, "extra", "v1", allClusters, ""))
	require.NoError(t, runApply(t, fed, prune...).err)

	empty := t.TempDir()
	emptyPrune := []string{"-f", empty, "--prune", "--applyset", "app", "-n", ns}
	r := runApply(t, fed, emptyPrune...)
	require.EqualError(t, r.err, "-f "+empty+" holds no federated objects: with --prune this would delete every object of the ApplySet Secret pruneempty/app in every member cluster (--max-deletions still applies); check the -f path, or pass --allow-empty if that is what you mean")
	var partial *cmdutil.PartialError
	assert.False(t, errors.As(r.err, &partial), "exit 1, not 3")
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.total(c), "no request to %s", c)
		mustGet(t, c, cmGVR, ns, "cfg")
	}

	// --allow-empty: the user means it, but the guard still counts: the
	// Namespace and two ConfigMaps are three deletions per member, none
	// is done anywhere: exit 1
	r = runApply(t, fed, append(emptyPrune, "--allow-empty", "--max-deletions", "2")...)
	require.EqualError(t, r.err, "every member cluster failed: cluster1, cluster2, cluster3")
	assert.Contains(t, r.errOut, "failed Namespace pruneempty: not deleted: 3 objects would be deleted in this cluster, more than --max-deletions=2")
	for _, c := range clusterNames {
		assert.Zero(t, r.requests.counts[c]["DELETE"], c)
		mustGet(t, c, cmGVR, ns, "cfg")
		mustGet(t, c, nsGVR, "", ns)
	}

	// The ConfigMaps go; the Namespace holds the set's parent, which the
	// namespace guard keeps it for.
	r = runApply(t, fed, append(emptyPrune, "--allow-empty")...)
	assertPartial(t, r.err, "cluster1", "cluster2", "cluster3")
	for _, c := range clusterNames {
		assert.Equal(t, propagate.Deleted, r.action(c, "ConfigMap", ns, "cfg"), c)
		assert.Equal(t, propagate.Deleted, r.action(c, "ConfigMap", ns, "extra"), c)
		assert.Equal(t, propagate.ReasonNamespaceNotEmpty, r.object(c, "Namespace", "", ns).Reason, c)
	}
}

// TestApplySetNamespaceLookup: --applyset NAME without -n used to start a
// second set in "default" beside the one in use (issue 11). Now the parent
// is looked up by name in the members: in one namespace, it is used and
// stderr says so; in several, or nowhere yet, -n is required.
func TestApplySetNamespaceLookup(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns, other = "lookup", "lookup-other"
	write(t, dir, namespaceDoc(ns)+"---\n"+namespaceDoc(other)+configMapDoc(ns, "cfg", "v1", allClusters, ""))

	r := runApply(t, fed, "-f", dir, "--prune", "--applyset", "lookup-set")
	var flagErr *cmdutil.FlagError
	require.ErrorAs(t, r.err, &flagErr, "a new set needs -n")
	assert.EqualError(t, r.err, "--applyset lookup-set needs -n NAMESPACE: no member cluster holds the parent Secret lookup-set in any namespace yet, and the namespace is part of the set's identity")
	assert.Empty(t, r.out, "nothing was applied")

	require.NoError(t, runApply(t, fed, "-f", dir, "--prune", "--applyset", "lookup-set", "-n", ns).err)
	r = runApply(t, fed, "-f", dir, "--prune", "--applyset", "lookup-set")
	require.NoError(t, r.err)
	assert.Contains(t, r.errOut, "ApplySet lookup-set: using namespace lookup, where its parent Secret lookup-set is (cluster1, cluster2, cluster3); give -n to choose\n")
	assertAll(t, r, "ConfigMap", ns, "cfg", propagate.Unchanged)
	for _, c := range clusterNames {
		_, err := get(t, c, secretGVR, "default", "lookup-set")
		assert.True(t, apierrors.IsNotFound(err), "no second set in default in %s: %v", c, err)
	}

	// A second parent of that name in another namespace (cluster2 only):
	// which set is meant must be said.
	require.NoError(t, runApply(t, fed, "-f", dir, "--prune", "--applyset", "lookup-set", "-n", other, "--cluster", "cluster2").err)
	r = runApply(t, fed, "-f", dir, "--prune", "--applyset", "lookup-set")
	require.ErrorAs(t, r.err, &flagErr)
	assert.EqualError(t, r.err, "--applyset lookup-set is ambiguous without -n: its parent Secret lookup-set is in several namespaces: lookup (cluster1, cluster2, cluster3), lookup-other (cluster2); give -n NAMESPACE")

	// a ConfigMap parent is a different set: not found by the Secret's name
	r = runApply(t, fed, "-f", dir, "--prune", "--applyset", "configmaps/lookup-set")
	require.ErrorAs(t, r.err, &flagErr)
	assert.Contains(t, r.err.Error(), "no member cluster holds the parent ConfigMap lookup-set in any namespace yet")
}
