package karmada

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/placement"
)

// The tests in this file run Karmada's own unit-test expectations,
// transcribed as data under testdata/upstream with the upstream file and
// test function of each case (karmada-io/karmada at f8fdd02).

func loadUpstream(t *testing.T, name string, out any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "upstream", name))
	require.NoError(t, err)
	require.NoError(t, yaml.Unmarshal(data, out))
}

// reshape converts a decoded YAML value into one of this package's types
// through JSON, as the strict decoder would give it.
func reshape(t *testing.T, in, out any) {
	t.Helper()
	raw, err := json.Marshal(in)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, out))
}

func TestUpstreamWebster(t *testing.T) {
	var file struct {
		Cases []struct {
			Source, Name string
			Total        int32
			Weights      map[string]int64
			UID          string
			Want         map[string]int32
		}
	}
	loadUpstream(t, "webster.yaml", &file)
	require.NotEmpty(t, file.Cases)
	for _, tc := range file.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			want := tc.Want
			if want == nil {
				want = map[string]int32{}
			}
			assert.Equal(t, want, webster(tc.Total, tc.Weights, tc.UID).Replicas, tc.Source)
		})
	}
}

type upstreamCluster struct {
	Name     string
	Labels   map[string]string
	Provider string
	Region   string
	Zones    []string
}

func (c upstreamCluster) cluster() placement.Cluster {
	return placement.Cluster{Name: c.Name, Labels: c.Labels, Provider: c.Provider, Region: c.Region, Zones: c.Zones}
}

func TestUpstreamClusterAffinity(t *testing.T) {
	var file struct {
		Cases []struct {
			Source, Name string
			Cluster      upstreamCluster
			Affinity     map[string]any
			Want         bool
		}
	}
	loadUpstream(t, "affinity.yaml", &file)
	require.NotEmpty(t, file.Cases)
	for _, tc := range file.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			var a clusterAffinity
			reshape(t, tc.Affinity, &a)
			assert.Equal(t, tc.Want, clusterMatches(tc.Cluster.cluster(), a), tc.Source)
		})
	}
}

func resourceOf(t *testing.T, obj map[string]any) resource {
	t.Helper()
	var m struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name, Namespace string
			Labels          map[string]string
		}
	}
	reshape(t, obj, &m)
	return resource{APIVersion: m.APIVersion, Kind: m.Kind, Namespace: m.Metadata.Namespace, Name: m.Metadata.Name, Labels: m.Metadata.Labels}
}

func TestUpstreamResourceSelectors(t *testing.T) {
	var file struct {
		Matches []struct {
			Source, Name string
			Object       map[string]any
			Selector     map[string]any
			Selectors    []map[string]any
			Want         bool
			Priority     string
		}
		Choose []struct {
			Source, Name string
			Object       map[string]any
			Policies     []map[string]any
			Want         string
		}
	}
	loadUpstream(t, "selectors.yaml", &file)
	require.NotEmpty(t, file.Matches)
	require.NotEmpty(t, file.Choose)
	priorities := map[string]implicitPriority{"None": mismatch, "MatchAll": matchAll, "LabelSelector": matchLabelSelector, "Name": matchName}
	for _, tc := range file.Matches {
		t.Run("match/"+tc.Name, func(t *testing.T) {
			r := resourceOf(t, tc.Object)
			var selectors []resourceSelector
			if tc.Selector != nil {
				selectors = []resourceSelector{{}}
				reshape(t, tc.Selector, &selectors[0])
			} else {
				reshape(t, tc.Selectors, &selectors)
			}
			got := selectorsPriority(r, selectors)
			assert.Equal(t, tc.Want, got != mismatch, tc.Source)
			if tc.Priority != "" {
				want, ok := priorities[tc.Priority]
				require.True(t, ok, "unknown priority %q", tc.Priority)
				assert.Equal(t, want, got, tc.Source)
			}
		})
	}
	for _, tc := range file.Choose {
		t.Run("choose/"+tc.Name, func(t *testing.T) {
			r := resourceOf(t, tc.Object)
			var policies []*propagationPolicy
			for _, raw := range tc.Policies {
				p := &propagationPolicy{}
				reshape(t, raw, p)
				if p.Kind == ClusterPropagationPolicyKind {
					p.Namespace = ""
				}
				policies = append(policies, p)
			}
			chosen, _, _ := highestPriority(r, policies)
			got := ""
			if chosen != nil {
				got = policyID(chosen)
			}
			assert.Equal(t, tc.Want, got, tc.Source)
		})
	}
}

func TestUpstreamOverriders(t *testing.T) {
	var file struct {
		Cases []struct {
			Source, Name string
			Object       map[string]any
			Overriders   map[string]any
			Want         map[string]any
			WantError    bool `json:"wantError"`
			Asserted     string
		}
	}
	loadUpstream(t, "overriders.yaml", &file)
	require.NotEmpty(t, file.Cases)
	for i, tc := range file.Cases {
		t.Run(fmt.Sprintf("%d/%s", i, tc.Name), func(t *testing.T) {
			var o overriders
			reshape(t, tc.Overriders, &o)
			var obj map[string]any
			reshape(t, tc.Object, &obj) // numbers as JSON decodes them, like want
			kind, _ := obj["kind"].(string)
			a := &applier{obj: obj, kind: kind}
			err := a.overriders(o, "test")
			if tc.WantError {
				assert.Error(t, err, tc.Source)
				return
			}
			require.NoError(t, err, tc.Source)
			var want map[string]any
			reshape(t, tc.Want, &want)
			assert.Equal(t, want, a.obj, tc.Source)
		})
	}
}

func overridePolicies(t *testing.T, raw []map[string]any) []*overridePolicy {
	t.Helper()
	var out []*overridePolicy
	for _, r := range raw {
		p := &overridePolicy{}
		reshape(t, r, p)
		if p.Kind == ClusterOverridePolicyKind {
			p.Namespace = ""
		}
		out = append(out, p)
	}
	return out
}

func TestUpstreamPolicies(t *testing.T) {
	var file struct {
		OverrideOrdering []struct {
			Source, Name string
			Object       map[string]any
			Cluster      upstreamCluster
			Policies     []map[string]any
			Want         []struct {
				Policy     string
				Overriders map[string]any
			}
		} `json:"overrideOrdering"`
		ApplyOverridePolicies []struct {
			Source, Name string
			Object       map[string]any
			Cluster      upstreamCluster
			Policies     []map[string]any
			Want         map[string]any
		} `json:"applyOverridePolicies"`
		StaticWeightList []struct {
			Source, Name      string
			Candidates        []upstreamCluster
			ReplicaScheduling *replicaSchedulingStrat `json:"replicaScheduling"`
			Replicas          int32
			UID               string
			WantWeights       map[string]int64 `json:"wantWeights"`
			Want              map[string]int32
		} `json:"staticWeightList"`
		PolicyNameTieBreak []struct {
			Source, Name, Kind string
			A                  *string
			B                  string
			Want               string
		} `json:"policyNameTieBreak"`
		DivisionPreferenceDefaulting []struct {
			Source, Name      string
			ReplicaScheduling *replicaSchedulingStrat `json:"replicaScheduling"`
			WantWeighted      bool                    `json:"wantWeighted"`
		} `json:"divisionPreferenceDefaulting"`
	}
	loadUpstream(t, "policies.yaml", &file)
	require.NotEmpty(t, file.OverrideOrdering)
	require.NotEmpty(t, file.ApplyOverridePolicies)
	require.NotEmpty(t, file.StaticWeightList)
	require.NotEmpty(t, file.PolicyNameTieBreak)
	require.NotEmpty(t, file.DivisionPreferenceDefaulting)

	for _, tc := range file.OverrideOrdering {
		t.Run("ordering/"+tc.Name, func(t *testing.T) {
			var got []string
			for _, b := range overriderBlocks(resourceOf(t, tc.Object), overridePolicies(t, tc.Policies), tc.Cluster.cluster()) {
				raw, err := json.Marshal(b.overriders)
				require.NoError(t, err)
				got = append(got, b.policy+" "+string(raw))
			}
			var want []string
			for _, w := range tc.Want {
				var o overriders
				reshape(t, w.Overriders, &o)
				raw, err := json.Marshal(o)
				require.NoError(t, err)
				want = append(want, w.Policy+" "+string(raw))
			}
			assert.Equal(t, want, got, tc.Source)
		})
	}
	for _, tc := range file.ApplyOverridePolicies {
		t.Run("apply/"+tc.Name, func(t *testing.T) {
			ps := &policySet{override: map[string][]*overridePolicy{}}
			for _, p := range overridePolicies(t, tc.Policies) {
				if p.Namespace == "" {
					ps.clusterOverride = append(ps.clusterOverride, p)
				} else {
					ps.override[p.Namespace] = append(ps.override[p.Namespace], p)
				}
			}
			var obj map[string]any
			reshape(t, tc.Object, &obj)
			r := resourceOf(t, tc.Object)
			a := &applier{obj: obj, kind: r.Kind}
			require.NoError(t, ps.memberOverrides(a, ps.selectedOverridePolicies(plain{r: r, obj: obj}, false), tc.Cluster.cluster(), nil, nil, ""), tc.Source)
			var want map[string]any
			reshape(t, tc.Want, &want)
			assert.Equal(t, want, a.obj, tc.Source)
		})
	}
	for _, tc := range file.StaticWeightList {
		t.Run("weights/"+tc.Name, func(t *testing.T) {
			var cands []placement.Cluster
			for _, c := range tc.Candidates {
				cands = append(cands, c.cluster())
			}
			weights := staticWeights(cands, tc.ReplicaScheduling.WeightPreference)
			assert.Equal(t, tc.WantWeights, weights, tc.Source)
			want := tc.Want
			if want == nil {
				want = map[string]int32{}
			}
			assert.Equal(t, want, webster(tc.Replicas, weights, tc.UID).Replicas, tc.Source)
		})
	}
	for _, tc := range file.PolicyNameTieBreak {
		t.Run("tiebreak/"+tc.Kind+"/"+tc.Name, func(t *testing.T) {
			all := resourceSelector{APIVersion: "v1", Kind: "ConfigMap"}
			var policies []*propagationPolicy
			if tc.A != nil {
				policies = append(policies, &propagationPolicy{Spec: propagationSpec{ResourceSelectors: []resourceSelector{all}}})
				policies[0].Name = *tc.A
			}
			b := &propagationPolicy{Spec: propagationSpec{ResourceSelectors: []resourceSelector{all}}}
			b.Name = tc.B
			policies = append(policies, b)
			chosen, _, _ := highestPriority(resource{APIVersion: "v1", Kind: "ConfigMap", Name: "x"}, policies)
			require.NotNil(t, chosen)
			assert.Equal(t, tc.Want, chosen.Name, tc.Source)
		})
	}
	for _, tc := range file.DivisionPreferenceDefaulting {
		t.Run("defaulting/"+tc.Name, func(t *testing.T) {
			p := &propagationPolicy{Spec: propagationSpec{Placement: placementSpec{ReplicaScheduling: tc.ReplicaScheduling}}}
			p.defaults()
			rs := p.Spec.Placement.ReplicaScheduling
			assert.Equal(t, tc.WantWeighted, rs != nil && rs.ReplicaDivisionPreference == "Weighted", tc.Source)
		})
	}
}
