package propagate

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/members/memberstest"
)

func secret(data map[string]any) *unstructured.Unstructured {
	if data == nil {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret"}}
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": data}}
}

func TestMaskSecrets(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                 string
		live, merged         *unstructured.Unstructured
		wantLive, wantMerged map[string]any
		liveNil, mergedNil   bool
	}{
		{
			name:       "same value masked alike, changed value marked before and after, one-sided values masked",
			live:       secret(map[string]any{"same": "c2VjcmV0", "changed": "b2xk", "removed": "eA=="}),
			merged:     secret(map[string]any{"same": "c2VjcmV0", "changed": "bmV3", "added": "eQ=="}),
			wantLive:   map[string]any{"same": "***", "changed": "*** (before)", "removed": "***"},
			wantMerged: map[string]any{"same": "***", "changed": "*** (after)", "added": "***"},
		},
		{
			name:       "a new Secret",
			merged:     secret(map[string]any{"k": "dg=="}),
			liveNil:    true,
			wantMerged: map[string]any{"k": "***"},
		},
		{
			name:      "a deleted Secret",
			live:      secret(map[string]any{"k": "dg=="}),
			mergedNil: true,
			wantLive:  map[string]any{"k": "***"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			maskSecrets(tt.live, tt.merged)
			if !tt.liveNil {
				got, _, _ := unstructured.NestedMap(tt.live.Object, "data")
				assert.Equal(t, tt.wantLive, got)
			}
			if !tt.mergedNil {
				got, _, _ := unstructured.NestedMap(tt.merged.Object, "data")
				assert.Equal(t, tt.wantMerged, got)
			}
		})
	}
}

func TestMaskSecretsHidesKubectlsLastApplied(t *testing.T) {
	t.Parallel()
	live := secret(map[string]any{"k": "c2VjcmV0"})
	live.SetAnnotations(map[string]string{lastAppliedAnnotation: `{"data":{"k":"c2VjcmV0"}}`, "other": "kept"})
	merged := live.DeepCopy()
	maskSecrets(live, merged)
	for _, u := range []*unstructured.Unstructured{live, merged} {
		assert.Equal(t, map[string]string{lastAppliedAnnotation: "***", "other": "kept"}, u.GetAnnotations())
	}
}

func TestMaskSecretsLeavesOtherKindsAlone(t *testing.T) {
	t.Parallel()
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}}
	maskSecrets(cm, cm.DeepCopy())
	assert.Equal(t, map[string]any{"k": "v"}, cm.Object["data"])
}

// TestCompareSendsEveryObject: unchanged objects are sent too (as dry
// runs), so that drift shows; removals compare live with nothing; nothing
// changes.
func TestCompareSendsEveryObject(t *testing.T) {
	t.Parallel()
	fake := newFake(cmType)
	res := resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"a"}},
		spec{t: cmType, name: "gone", clusters: []string{"a"}})
	run(t, res, map[string]*memberstest.Fake{"a": fake}, Options{})
	fake.ClearCalls()

	res = resultFor(spec{t: cmType, name: "cfg", body: map[string]any{"data": map[string]any{"k": "v"}}, clusters: []string{"a"}},
		spec{t: cmType, name: "gone", clusters: nil}, spec{t: cmType, name: "new", clusters: []string{"a"}})
	rep := Compare(context.Background(), Input{Result: res, Clusters: []string{"a"}, Clients: func(string) (members.Client, error) { return fake, nil }})
	require.Empty(t, rep.Failed())
	assert.Equal(t, "server", rep.DryRun)
	assert.Equal(t, []string{"unchanged ConfigMap cfg", "created ConfigMap new", "deleted ConfigMap gone"}, actions(rep.Clusters[0]))
	assert.ElementsMatch(t, []string{"APPLY ConfigMap cfg", "APPLY ConfigMap new", "DELETE configmaps gone"}, fake.Writes(), "every object is sent, as a dry run")
	assert.True(t, fake.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "gone")), "nothing deleted")
	assert.False(t, fake.Has(memberstest.KeyOf(mappingOf(cmType), "shop", "new")), "nothing created")

	cmp := rep.Clusters[0].Comparisons
	require.Len(t, cmp, 3)
	assert.Equal(t, "a_v1.ConfigMap.shop.cfg", cmp[0].FileName("a"))
	assert.NotNil(t, cmp[0].Live)
	assert.NotNil(t, cmp[0].Merged)
	assert.Equal(t, "a_v1.ConfigMap.shop.gone", cmp[1].FileName("a"))
	assert.NotNil(t, cmp[1].Live)
	assert.Nil(t, cmp[1].Merged, "a deletion compares live with nothing")
	assert.Equal(t, "a_v1.ConfigMap.shop.new", cmp[2].FileName("a"))
	assert.Nil(t, cmp[2].Live, "an addition compares nothing with the dry run")
}
