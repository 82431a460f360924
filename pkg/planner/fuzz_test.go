package planner_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/planner"
)

// fuzzInput decodes data into Plan's input, 7 bytes per cluster: name,
// preference, min, max, weight, current, capacity. 0xfe means -1 for the
// numbers, so that validation is exercised (a capacity of -1 is valid:
// KubeFed estimates one when more pods are long unschedulable than
// spec.replicas), and weights from 0xf0 up are huge, so that KubeFed's
// int64 overflow is.
func fuzzInput(total int32, rebalance bool, key string, data []byte) (in input, invalid bool) {
	in = input{
		spec:     federation.RSPSpec{TotalReplicas: total, Rebalance: rebalance},
		key:      key,
		current:  counts{},
		capacity: counts{},
	}
	invalid = total < 0
	small := func(b byte) int64 {
		if b == 0xfe {
			invalid = true
			return -1
		}
		return int64(b % 64)
	}
	for ; len(data) >= 7; data = data[7:] {
		name := clusterPool[int(data[0])%len(clusterPool)]
		var p federation.ClusterPreferences
		p.MinReplicas = small(data[2])
		if data[3] != 0xff {
			p.MaxReplicas = ptr(small(data[3]))
		}
		switch w := data[4]; {
		case w == 0xfe:
			p.Weight = -1
			invalid = true
		case w >= 0xf0:
			p.Weight = math.MaxInt64 >> (w - 0xf0)
			invalid = true // may overflow, may not
		default:
			p.Weight = int64(w % 8)
		}
		switch data[1] % 4 {
		case 0: // listed, no preference of its own
		case 1:
			if in.spec.Clusters == nil {
				in.spec.Clusters = prefs{}
			}
			in.spec.Clusters[name] = p
		case 2:
			if in.spec.Clusters == nil {
				in.spec.Clusters = prefs{}
			}
			in.spec.Clusters["*"] = p
		case 3: // preference only, not listed
			if in.spec.Clusters == nil {
				in.spec.Clusters = prefs{}
			}
			in.spec.Clusters[name] = p
			continue
		}
		if slices.Contains(in.clusters, name) {
			invalid = true
		}
		in.clusters = append(in.clusters, name)
		if data[5] != 0xff {
			in.current[name] = small(data[5])
		}
		switch data[6] {
		case 0xff:
		case 0xfe:
			in.capacity[name] = -1
		default:
			in.capacity[name] = small(data[6])
		}
	}
	return in, invalid
}

func FuzzPlan(f *testing.F) {
	f.Add(int32(50), false, "", []byte{0, 2, 0, 0xff, 1, 0xff, 0xff, 1, 0, 0, 0xff, 0, 0xff, 0xff, 2, 0, 0, 0xff, 0, 0xff, 0xff})
	f.Add(int32(71), true, "ns/x", []byte{0, 1, 0, 10, 200, 0xff, 0xff, 1, 1, 0, 0xff, 1, 0xff, 0xff, 2, 1, 0, 21, 1, 0xff, 10, 3, 1, 0, 10, 1, 0xff, 0xff})
	f.Add(int32(50), false, "", []byte{0, 1, 10, 0xff, 1, 10, 0xff, 1, 1, 0, 0xff, 1, 70, 0xff})
	f.Add(int32(20), false, "test-ns/test-deployment", []byte{0, 1, 10, 5, 0, 0xff, 0xff, 1, 1, 0, 0xff, 1, 3, 2})
	f.Add(int32(-1), false, "", []byte{0, 1, 0xfe, 0xfe, 0xfe, 0xfe, 0xfe})
	f.Add(int32(10), false, "", []byte{0, 1, 0, 0xff, 0xf2, 0xff, 0xff})
	f.Add(int32(3), false, "", []byte{0, 2, 0, 0xff, 1, 0, 0xfe, 1, 2, 0, 0xff, 1, 2, 0xfe})
	f.Fuzz(func(t *testing.T, total int32, rebalance bool, key string, data []byte) {
		in, invalid := fuzzInput(total, rebalance, key, data)
		before := deepCopy(in)
		res, err := planner.Plan(in.spec, in.clusters, in.key, in.current, in.capacity)
		require.Equal(t, before, in, "inputs are not modified")
		if err != nil {
			require.True(t, invalid, "only invalid input is rejected: %v: %v", in, err)
			require.Zero(t, res)
			return
		}
		checkInvariants(t, in, res)
		wantPlan, wantOverflow := referencePlan(in)
		require.Equal(t, wantPlan, res.Plan, "%v", in)
		require.Equal(t, wantOverflow, res.Overflow, "%v", in)

		rev := slices.Clone(in.clusters)
		slices.Reverse(rev)
		again, err := planner.Plan(in.spec, rev, in.key, in.current, in.capacity)
		require.NoError(t, err)
		require.Equal(t, res, again, "the order of the cluster list does not matter: %v", in)
	})
}
