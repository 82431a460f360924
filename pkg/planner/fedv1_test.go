package planner_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// TestFederationV1Planner runs Federation v1's own planner unit tests
// (kubernetes-retired/federation, pkg/federation-controller/util/planner/
// planner_test.go at 804bb9f), transcribed as data in
// testdata/fedv1-planner.yaml with their upstream test function: the
// planner Federation v1's annotations use is KubeFed's, and these are its
// origin's expectations.
func TestFederationV1Planner(t *testing.T) {
	data, err := os.ReadFile("testdata/fedv1-planner.yaml")
	require.NoError(t, err)
	var file struct {
		Cases []struct {
			Source, Name  string
			TotalReplicas int32                                    `json:"totalReplicas"`
			Rebalance     bool                                     `json:"rebalance"`
			Preferences   map[string]federation.ClusterPreferences `json:"preferences"`
			Clusters      []string
			Key           string
			Current       map[string]int64
			Capacity      map[string]int64
			Want          map[string]int64
			WantOverflow  map[string]int64 `json:"wantOverflow"`
		}
	}
	require.NoError(t, yaml.Unmarshal(data, &file))
	require.Len(t, file.Cases, 40)
	for _, tc := range file.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			spec := federation.RSPSpec{TotalReplicas: tc.TotalReplicas, Rebalance: tc.Rebalance, Clusters: tc.Preferences}
			res, err := planner.Plan(spec, tc.Clusters, tc.Key, tc.Current, tc.Capacity)
			require.NoError(t, err, tc.Source)
			assert.Equal(t, tc.Want, res.Plan, tc.Source)
			if len(tc.WantOverflow) == 0 {
				assert.Empty(t, res.Overflow, tc.Source)
			} else {
				assert.Equal(t, tc.WantOverflow, res.Overflow, tc.Source)
			}
		})
	}
}
