package planner

import (
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
)

func TestFNV1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		cluster, key  string
		want, wantFNV uint32 // FNV-1 and, for contrast, FNV-1a
	}{
		// KubeFed's planner hashes with FNV-1 (planner.go); with the empty key one-letter names hash in reverse
		// alphabetical order, A = 0x050c5d5e > … > E = 0x050c5d5a.
		{name: "A with the empty key", cluster: "A", want: 0x050c5d5e, wantFNV: 0xc40bf6cc},
		{name: "B with the empty key", cluster: "B", want: 0x050c5d5d, wantFNV: 0xc70bfb85},
		{name: "C with the empty key", cluster: "C", want: 0x050c5d5c, wantFNV: 0xc60bf9f2},
		{name: "D with the empty key", cluster: "D", want: 0x050c5d5b, wantFNV: 0xc10bf213},
		{name: "E with the empty key", cluster: "E", want: 0x050c5d5a, wantFNV: 0xc00bf080},
		// The user guide's RSP: B < A < C (FNV-1a would say C < B < A).
		{name: "A with test-ns/test-deployment", cluster: "A", key: "test-ns/test-deployment", want: 0x4f4678bf, wantFNV: 0x8c2aba67},
		{name: "B with test-ns/test-deployment", cluster: "B", key: "test-ns/test-deployment", want: 0x3f654b26, wantFNV: 0x5d480d80},
		{name: "C with test-ns/test-deployment", cluster: "C", key: "test-ns/test-deployment", want: 0xf0b75bb5, wantFNV: 0x5657a465},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := fnv1(tt.cluster, tt.key)
			assert.Equal(t, tt.want, got, "FNV-1 %#08x", got)
			assert.Equal(t, tt.want, stdFNV1(tt.cluster, tt.key), "hash/fnv.New32 agrees")
			a := fnv.New32a()
			a.Write([]byte(tt.cluster + tt.key))
			assert.Equal(t, tt.wantFNV, a.Sum32(), "FNV-1a differs")
			assert.NotEqual(t, tt.wantFNV, got, "FNV-1, not FNV-1a")
		})
	}
}

// stdFNV1 is what KubeFed computes: fnv.New32 fed the cluster name, then
// the key.
func stdFNV1(cluster, key string) uint32 {
	h := fnv.New32()
	h.Write([]byte(cluster))
	h.Write([]byte(key))
	return h.Sum32()
}

func TestFNV1MatchesHashFNV(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		cluster := randomBytes(r, 20)
		key := randomBytes(r, 40)
		require.Equal(t, stdFNV1(cluster, key), fnv1(cluster, key), "cluster %q key %q", cluster, key)
	}
}

func randomBytes(r *rand.Rand, maxLen int) string {
	b := make([]byte, r.IntN(maxLen+1))
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return string(b)
}

func TestPlanOrder(t *testing.T) {
	t.Parallel()
	// member-412789 and member-649192 collide under FNV-1 (0xdba719e9 with
	// the empty key, and so with any key appended).
	require.Equal(t, fnv1("member-412789", ""), fnv1("member-649192", ""))
	require.Equal(t, fnv1("member-412789", "ns/x"), fnv1("member-649192", "ns/x"))

	tests := []struct {
		name     string
		spec     federation.RSPSpec
		clusters []string
		key      string
		want     map[string]int64
	}{
		{
			// FNV-1a would order A, C, B and give A 17, C 17, B 16.
			name:     "FNV-1 of name+key, not FNV-1a, orders equal weights: 50 over A, B, C is A16 B17 C17",
			spec:     federation.RSPSpec{TotalReplicas: 50, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C"},
			want:     map[string]int64{"A": 16, "B": 17, "C": 17},
		},
		{
			// FNV-1a would order C, B, A and give A the 16.
			name:     "the key changes the order: with test-ns/test-deployment C is last and gets 16",
			spec:     federation.RSPSpec{TotalReplicas: 50, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C"},
			key:      "test-ns/test-deployment",
			want:     map[string]int64{"A": 17, "B": 17, "C": 16},
		},
		{
			name:     "a single replica goes to the lowest hash, E of A..E, with the empty key",
			spec:     federation.RSPSpec{TotalReplicas: 1, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}},
			clusters: []string{"A", "B", "C", "D", "E"},
			want:     map[string]int64{"A": 0, "B": 0, "C": 0, "D": 0, "E": 1},
		},
		{
			name:     "weight beats hash: A's weight 2 puts it first despite the highest hash",
			spec:     federation.RSPSpec{TotalReplicas: 1, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}, "A": {Weight: 2}}},
			clusters: []string{"A", "B", "C", "D", "E"},
			want:     map[string]int64{"A": 1, "B": 0, "C": 0, "D": 0, "E": 0},
		},
		{
			name:     "on a hash collision the smaller name goes first, whatever the list order",
			spec:     federation.RSPSpec{TotalReplicas: 1, Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}},
			clusters: []string{"member-649192", "member-412789"},
			key:      "ns/x",
			want:     map[string]int64{"member-412789": 1, "member-649192": 0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Plan(tt.spec, tt.clusters, tt.key, nil, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Plan)
		})
	}
}
