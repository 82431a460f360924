package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestStatusPrintFlags: kubectl's output flags on status. Each row is one
// federated object in one member; custom-columns and --sort-by read the
// object as -o json prints it with "cluster" holding that member's entry;
// -L and --show-labels show the federated object's labels; -o name names
// the federated objects.
func TestStatusPrintFlags(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "printing"
	labelled := `---
apiVersion: types.kubefed.io/v1beta1
kind: FederatedConfigMap
metadata:
  name: labelled
  namespace: printing
  labels: {team: payments}
spec:
  template:
    data: {k: v}
  placement:
    clusters: [{name: cluster2}, {name: cluster1}]
`
	file := writeFile(t, dir, "app.yaml", namespaceDoc(ns)+configMapDoc(ns, "plain", "v1", allClusters)+labelled)
	apply(t, file)

	r := runStatus(t, "-f", file, "-o", "name")
	require.NoError(t, r.err)
	assert.Equal(t, "federatedconfigmap.types.kubefed.io/labelled\nfederatedconfigmap.types.kubefed.io/plain\nfederatednamespace.types.kubefed.io/printing\n", r.out)

	r = runStatus(t, "-f", file, "-o", "custom-columns=NAME:.metadata.name,CLUSTER:.cluster.name,READINESS:.cluster.readiness", "--sort-by", ".cluster.name")
	require.NoError(t, r.err)
	assert.Equal(t, "NAME       CLUSTER    READINESS\n"+
		"labelled   cluster1   Current\nplain      cluster1   Current\nprinting   cluster1   Current\n"+
		"labelled   cluster2   Current\nplain      cluster2   Current\nprinting   cluster2   Current\n"+
		"plain      cluster3   Current\nprinting   cluster3   Current\n", r.out)

	r = runStatus(t, "-f", file, "-L", "team", "--cluster", "cluster1", "--no-headers")
	require.NoError(t, r.err)
	assert.Regexp(t, `^ConfigMap\s+printing\s+labelled\s+cluster1\s+OK\s+Current\s+<none>\s+<none>\s+payments\nConfigMap\s+printing\s+plain\s+cluster1\s+OK\s+Current\s+<none>\s+<none>\s+\nNamespace\s+printing\s+printing\s+cluster1\s+OK\s+Current\s+<none>\s+<none>\s+\n$`, r.out)

	r = runStatus(t, "-f", file, "--show-labels", "--cluster", "cluster2")
	require.NoError(t, r.err)
	assert.Regexp(t, `\nConfigMap\s+printing\s+labelled\s+cluster2\s+OK\s+Current\s+<none>\s+<none>\s+team=payments\n`, r.out)

	r = runStatus(t, "-f", file, "-o", `jsonpath={range .items[*]}{.metadata.name}:{range .status.clusters[*]}{.name},{end} {end}`)
	require.NoError(t, r.err)
	assert.Equal(t, "labelled:cluster1,cluster2, plain:cluster1,cluster2,cluster3, printing:cluster1,cluster2,cluster3, ", r.out)
	assert.Contains(t, r.errOut, "3 federated objects, 8 member objects", "the roll-up still goes to standard error")
}
