package status

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTableWaves: -o wide shows each member's rollout wave when the
// federation has waves, and no WAVE column otherwise.
func TestTableWaves(t *testing.T) {
	r := &Report{Items: []Object{{Kind: "FederatedConfigMap", Metadata: ObjectMeta{Namespace: "shop", Name: "settings"},
		Status: ObjectStatus{Conditions: []Condition{{Type: "Propagation"}}, Clusters: []ClusterStatus{{Name: "c1", Readiness: Current}, {Name: "c2", Readiness: Current}}}}}}
	table, err := Table(r)
	require.NoError(t, err)
	for _, c := range table.Columns {
		assert.NotEqual(t, "WAVE", c.Name)
	}

	r.SetWaves(func(c string) string { return map[string]string{"c1": "canary", "c2": "rest"}[c] })
	table, err = Table(r)
	require.NoError(t, err)
	require.Len(t, table.Columns, 11)
	assert.Equal(t, "WAVE", table.Columns[8].Name)
	assert.Equal(t, "canary", table.Rows[0].Cells[8])
	assert.Equal(t, "rest", table.Rows[1].Cells[8])
	assert.Equal(t, "rest", r.Items[0].Status.Clusters[1].Wave, "and -o json's clusters[].wave")
}
