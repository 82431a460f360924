package diff

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDiffSelector: diff -l compares only the federated objects whose own
// labels match, as apply -l writes only them: an unselected object that
// changed, or left a member, shows nowhere; the FederatedNamespace that
// -l leaves out still places the selected objects; nothing selected is
// an error (exit 2).
func TestDiffSelector(t *testing.T) {
	fed := federationOf()
	dir := t.TempDir()
	const ns = "diffsel"
	labelled := func(name, tier, value, placement string) string {
		return strings.Replace(configMap(ns, name, value, placement), "metadata: {name: "+name+", namespace: "+ns+"}",
			"metadata: {name: "+name+", namespace: "+ns+", labels: {tier: "+tier+"}}", 1)
	}
	write(t, dir, manifests(ns, labelled("a", "a", "v1", everywhere), labelled("b", "b", "v1", everywhere)))
	runApply(t, fed, "-f", dir)

	// both change; b also leaves cluster2
	write(t, dir, manifests(ns, labelled("a", "a", "v2", everywhere), labelled("b", "b", "v2", "{clusters: [{name: cluster1}]}")))
	r := runDiff(t, fed, "-f", dir, "-l", "tier=a")
	assert.Equal(t, 1, r.code, "a differs: %v", r.err)
	for _, c := range []string{"cluster1", "cluster2"} {
		assert.Contains(t, r.out, "/MERGED/"+c+"_v1.ConfigMap."+ns+".a\t", "a is compared in %s, placed by the unselected FederatedNamespace", c)
	}
	assert.Equal(t, 2, strings.Count(r.out, "-  k: v1\n+  k: v2\n"), "a's change, in both members, and nothing else")
	assert.NotContains(t, r.out, "ConfigMap."+ns+".b", "b is not selected: neither its change nor its leaving cluster2 shows")
	assert.NotContains(t, r.out, "Namespace.."+ns, "the FederatedNamespace is not selected")
	assert.Empty(t, r.errOut)

	r = runDiff(t, fed, "-f", dir, "-l", "tier in (a,b)")
	assert.Equal(t, 1, r.code, "%v", r.err)
	assert.Contains(t, r.out, "/MERGED/cluster1_v1.ConfigMap."+ns+".b\t", "b's change in cluster1")
	assert.Contains(t, r.out, "/LIVE/cluster2_v1.ConfigMap."+ns+".b\t", "b leaves cluster2: shown deleted")
	assert.Equal(t, 3, strings.Count(r.out, "-  k: v1\n+  k: v2\n"), "a in both members, b in cluster1")

	r = runDiff(t, fed, "-f", dir, "-l", "tier=c")
	assert.Equal(t, 2, r.code, "nothing selected is an error")
	assert.EqualError(t, r.err, "-f "+dir+" holds no federated objects matching -l tier=c; check the -f path and the selector, or pass --allow-empty if that is what you mean")
	assert.Empty(t, r.out)
}
