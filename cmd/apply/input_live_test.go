package apply

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/propagate"
)

// TestApplySelectorAndKustomize: apply -l writes only the selected
// federated objects and leaves the others as they are in every member —
// an unselected object whose placement changed is not de-placed, and the
// unselected FederatedNamespace still places the selected objects; apply
// -k applies a kustomization's output, here with a patch.
func TestApplySelectorAndKustomize(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "sel"
	manifests := func(a, b, bPlacement string) string {
		return namespaceDoc(ns) +
			configMapDoc(ns, "a", a, allClusters, "  labels: {tier: a}") +
			configMapDoc(ns, "b", b, bPlacement, "  labels: {tier: b}")
	}
	write(t, dir, manifests("1", "1", allClusters))
	r := runApply(t, fed, "-f", dir)
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", ns, "b", propagate.Created)

	// both change, b leaves cluster3; only a is selected
	write(t, dir, manifests("2", "2", "    clusters: [{name: cluster1}]"))
	r = runApply(t, fed, "-f", dir, "-l", "tier=a")
	require.NoError(t, r.err)
	assertAll(t, r, "ConfigMap", ns, "a", propagate.Configured)
	assertAll(t, r, "ConfigMap", ns, "b", "")
	assertAll(t, r, "Namespace", "", ns, "")
	for _, c := range clusterNames {
		assert.Equal(t, 1, r.requests.writes(c), "only a is written in %s: %v", c, r.requests.counts[c])
		assert.Equal(t, "2", mustGet(t, c, cmGVR, ns, "a").Object["data"].(map[string]any)["k"])
		assert.Equal(t, "1", mustGet(t, c, cmGVR, ns, "b").Object["data"].(map[string]any)["k"], "b untouched in %s", c)
	}

	// -k: the same manifests through a kustomization that patches b
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(`resources:
- manifests.yaml
patches:
- target: {kind: FederatedConfigMap, name: b}
  patch: |-
    - op: replace
      path: /spec/template/data/k
      value: "3"
`), 0o600))
	r = runApply(t, fed, "-k", dir, "-l", "tier in (b)")
	require.NoError(t, r.err)
	assert.Equal(t, propagate.Configured, r.action("cluster1", "ConfigMap", ns, "b"))
	assert.Equal(t, "3", mustGet(t, "cluster1", cmGVR, ns, "b").Object["data"].(map[string]any)["k"])
	for _, c := range []string{"cluster2", "cluster3"} {
		assert.Equal(t, propagate.Deleted, r.action(c, "ConfigMap", ns, "b"), "b, selected now, leaves %s", c)
	}
	assertAll(t, r, "ConfigMap", ns, "a", "")
}
