package status

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/testenv"
)

// TestStatusSelector: status -l reports the selected federated objects
// only, placed by the FederatedNamespace it leaves out (OK, not
// NamespaceNotFederated), and status -k reads a kustomization.
func TestStatusSelector(t *testing.T) {
	testenv.Require(t, env)
	dir := t.TempDir()
	const ns = "selected"
	labelled := func(name, tier string) string {
		return strings.Replace(configMapDoc(ns, name, "v1", allClusters), "  namespace: "+ns+"\n", "  namespace: "+ns+"\n  labels: {tier: "+tier+"}\n", 1)
	}
	input := writeFile(t, dir, "input.yaml", namespaceDoc(ns)+labelled("front", "a")+labelled("back", "b"))
	apply(t, input)

	r := runStatus(t, "-f", input, "-l", "tier=a", "-o", "json")
	require.NoError(t, r.err)
	assert.Contains(t, r.out, `"name": "front"`)
	assert.NotContains(t, r.out, `"name": "back"`)
	assert.NotContains(t, r.out, `"kind": "FederatedNamespace"`)
	assert.NotContains(t, r.out, "NamespaceNotFederated")
	assert.Equal(t, summary{FederatedObjects: 1, Propagation: map[string]int{"OK": 3}}, summaryOf(t, r.out))

	writeFile(t, dir, "kustomization.yaml", "resources: [input.yaml]\n")
	r = runStatus(t, "-k", dir, "-l", "tier in (a,b)", "-o", "json")
	require.NoError(t, r.err)
	assert.Contains(t, r.out, `"name": "front"`)
	assert.Contains(t, r.out, `"name": "back"`)
	assert.Equal(t, summary{FederatedObjects: 2, Propagation: map[string]int{"OK": 6}}, summaryOf(t, r.out))
}

type summary struct {
	FederatedObjects int            `json:"federatedObjects"`
	Propagation      map[string]int `json:"propagation"`
}

func summaryOf(t *testing.T, out string) summary {
	t.Helper()
	var list struct {
		Summary summary `json:"summary"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list), out)
	return list.Summary
}
