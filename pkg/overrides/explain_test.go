package overrides_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		obj     string
		ovs     string
		want    []overrides.Applied
		final   string
		wantErr string
	}{
		{
			name: "each override shows the value it found and the value it wrote",
			obj:  `{"spec": {"replicas": 1, "template": {"spec": {"containers": [{"image": "nginx:1.27"}]}}}}`,
			ovs: eu1(`[{"path": "/spec/replicas", "value": 3},
				{"path": "/spec/template/spec/containers/0/image", "value": "nginx:1.27-alpine"},
				{"op": "add", "path": "/spec/paused", "value": true}]`),
			want: []overrides.Applied{
				{Index: 0, Field: "spec.overrides[0].clusterOverrides[0]", Op: "replace", Path: "/spec/replicas", Old: int64(1), HadOld: true, New: int64(3)},
				{Index: 1, Field: "spec.overrides[0].clusterOverrides[1]", Op: "replace", Path: "/spec/template/spec/containers/0/image", Old: "nginx:1.27", HadOld: true, New: "nginx:1.27-alpine"},
				{Index: 2, Field: "spec.overrides[0].clusterOverrides[2]", Op: "add", Path: "/spec/paused", New: true},
			},
			final: `{"spec": {"paused": true, "replicas": 3, "template": {"spec": {"containers": [{"image": "nginx:1.27-alpine"}]}}}}`,
		},
		{
			name: "remove shows what it removed; add into an array inserts without an old value; null is written as null",
			obj:  `{"a": {"b": "x"}, "l": [1, 2]}`,
			ovs:  eu1(`[{"op": "remove", "path": "/a/b"}, {"op": "add", "path": "/l/0", "value": 0}, {"path": "/l/-1", "value": null}]`),
			want: []overrides.Applied{
				{Index: 0, Field: "spec.overrides[0].clusterOverrides[0]", Op: "remove", Path: "/a/b", Old: "x", HadOld: true},
				{Index: 1, Field: "spec.overrides[0].clusterOverrides[1]", Op: "add", Path: "/l/0", New: int64(0)},
				{Index: 2, Field: "spec.overrides[0].clusterOverrides[2]", Op: "replace", Path: "/l/-1", Old: int64(2), HadOld: true},
			},
			final: `{"a": {}, "l": [0, 1, null]}`,
		},
		{
			name: "a failing override returns those applied before it and Apply's error",
			obj:  `{"spec": {"replicas": 1}}`,
			ovs:  `[{"clusterName": "us-1"}, {"clusterName": "eu-1", "clusterOverrides": [{"path": "/spec/replicas", "value": 2}, {"path": "/spec/template/spec", "value": {}}]}]`,
			want: []overrides.Applied{
				{Entry: 1, Index: 0, Field: "spec.overrides[1].clusterOverrides[0]", Op: "replace", Path: "/spec/replicas", Old: int64(1), HadOld: true, New: int64(2)},
			},
			wantErr: "cluster eu-1: spec.overrides[1].clusterOverrides[1] (replace /spec/template/spec): replace operation does not apply: doc is missing path: /spec/template/spec: missing value",
		},
		{
			name:    "an invalid override fails before anything is applied",
			obj:     `{}`,
			ovs:     eu1(`[{"path": "/a", "value": 1}, {"path": "/kind", "value": "X"}]`),
			wantErr: `cluster eu-1: spec.overrides[0].clusterOverrides[1] (replace /kind): path "/kind" cannot be overridden: the kind comes from the federated type and must not vary across member clusters`,
		},
		{
			name:  "no overrides for the cluster: no steps, the object as it is",
			obj:   `{"a": 1}`,
			ovs:   `[{"clusterName": "us-1", "clusterOverrides": [{"path": "/a", "value": 2}]}]`,
			final: `{"a": 1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			obj := decodeObject(t, tt.obj)
			steps, got, err := overrides.Explain(obj, "eu-1", decodeOverrides(t, tt.ovs))
			assert.Equal(t, tt.want, steps)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				var ae *overrides.ApplyError
				require.ErrorAs(t, err, &ae)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, decodeObject(t, tt.final), got)
		})
	}
}

// TestExplainAgreesWithApply: on random objects and overrides, Explain
// ends with Apply's object, or fails with Apply's error.
func TestExplainAgreesWithApply(t *testing.T) {
	t.Parallel()
	g := &gen{r: rand.New(rand.NewPCG(7, 8))}
	runs := 5000
	if testing.Short() {
		runs = 1000
	}
	var failed int
	for run := range runs {
		obj := g.object(3)
		items := g.overrides(obj)
		ovs := []federation.ClusterOverrides{{ClusterName: "eu-1", ClusterOverrides: items}}
		want, wantErr := overrides.Apply(obj, "eu-1", ovs)
		steps, got, err := overrides.Explain(obj, "eu-1", ovs)
		if wantErr != nil {
			failed++
			require.EqualError(t, err, wantErr.Error(), "run %d\noverrides: %s", run, mustJSON(items))
			continue
		}
		require.NoError(t, err, "run %d\noverrides: %s", run, mustJSON(items))
		require.Equal(t, want, got, "run %d\noverrides: %s", run, mustJSON(items))
		require.Len(t, steps, len(items))
	}
	assert.Greater(t, failed, 0, "the generator produces patches that fail")
	assert.Less(t, failed, runs, "the generator produces patches that apply")
}
