package karmada

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWebsterProperties: for random weights and totals, the division sums
// to the total, gives nothing to a member of weight 0, and is
// house-monotone (one more replica never takes one from any member).
func TestWebsterProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		weights := map[string]int64{}
		for j := range 1 + rng.IntN(6) {
			weights[fmt.Sprintf("m%d", j)] = int64(rng.IntN(10))
		}
		total := int32(rng.IntN(40))
		key := fmt.Sprintf("ns/app-%d", i)
		d := webster(total, weights, key)
		next := webster(total+1, weights, key)
		var sum, positive int32
		for n, w := range weights {
			if w > 0 {
				positive++
			} else {
				require.Zero(t, d.Replicas[n], "weight 0 gets nothing: %v", weights)
			}
			sum += d.Replicas[n]
			assert.GreaterOrEqual(t, next.Replicas[n], d.Replicas[n], "house-monotone: %v, %d → %d", weights, total, total+1)
		}
		if positive > 0 {
			require.Equal(t, total, sum, "sums to the total: %v", weights)
			require.Len(t, d.Seats, int(total))
		}
	}
}

// TestTieBreakKey: the FNV-1a parity of the key orders equal members, as
// Karmada's tieBreakerByUID does with the template's uid.
func TestTieBreakKey(t *testing.T) {
	even, odd := "4858ca61-3ff8-4095-8267-f3d059d8074c", "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
	assert.Equal(t, map[string]int32{"A": 3, "B": 2}, webster(5, map[string]int64{"A": 1, "B": 1}, even).Replicas)
	assert.Equal(t, map[string]int32{"A": 2, "B": 3}, webster(5, map[string]int64{"A": 1, "B": 1}, odd).Replicas)
	assert.Equal(t, map[string]int32{"A": 3, "B": 2}, webster(5, map[string]int64{"A": 1, "B": 1}, "").Replicas)
}

// FuzzParseImage: an image that parses prints as a reference that parses
// to the same components, and an override never panics.
func FuzzParseImage(f *testing.F) {
	for _, s := range []string{"nginx", "nginx:1.27", "registry.k8s.io/pause:3.9", "localhost:5000/a/b@sha256:" + fmt.Sprintf("%064x", 1),
		"r.io/x:t@sha256:" + fmt.Sprintf("%064x", 2), "UPPER/case", "[::1]:5000/x", ""} {
		f.Add(s, "Tag", "add", "-rc1")
	}
	f.Fuzz(func(t *testing.T, s, component, operator, value string) {
		img, err := parseImage(s)
		if err != nil {
			return
		}
		again, err := parseImage(img.String())
		require.NoError(t, err, "%q printed as %q", s, img.String())
		assert.Equal(t, img, again)
		_, _ = img.override(component, operator, value)
	})
}
