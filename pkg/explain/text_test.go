package explain_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/explain"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/placement"
)

func n(v int64) *int64 { return &v }

func TestStepText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		step explain.Step
		want string
	}{
		{
			name: "a cluster without a preference is planned 0",
			step: explain.Step{Kind: "unmatched", Cluster: "c"},
			want: `c: no preference of its own and no "*": planned 0, takes no further part`,
		},
		{
			name: "the order shows weight, hash and the preference used",
			step: explain.Step{Kind: "ordered", Cluster: "b", Position: 1, Preference: "b", MinReplicas: n(4), MaxReplicas: n(8), Weight: n(2), Hash: "0x6a78ebc6"},
			want: "1. b  weight 2  hash 0x6a78ebc6  (preference b: min 4, max 8)",
		},
		{
			name: "the wildcard is quoted and a missing max is none",
			step: explain.Step{Kind: "ordered", Cluster: "us-east", Position: 2, Preference: "*", MinReplicas: n(0), Weight: n(1), Hash: "0x0a4631b6"},
			want: `2. us-east  weight 1  hash 0x0a4631b6  (preference "*": min 0, max none)`,
		},
		{
			name: "a minimum",
			step: explain.Step{Kind: "minimum", Cluster: "a", MinReplicas: n(4), Replicas: n(4), Total: n(4), Remaining: n(1)},
			want: "a: min 4 → 4, 1 left",
		},
		{
			name: "a minimum cut to what is left",
			step: explain.Step{Kind: "minimum", Cluster: "b", MinReplicas: n(20), Replicas: n(10), Total: n(10), Remaining: n(0)},
			want: "b: min 20, only 10 left → 10, 0 left",
		},
		{
			name: "running replicas kept",
			step: explain.Step{Kind: "preallocated", Cluster: "a", Replicas: n(3), Total: n(5), Remaining: n(2)},
			want: "a: keeps 3 running → 5, 2 left",
		},
		{
			name: "a pass",
			step: explain.Step{Kind: "pass", Pass: 1, WeightSum: n(3), Distribute: n(9), Remaining: n(9)},
			want: "pass 1: distribute 9 by weight, weightSum 3",
		},
		{
			name: "a pass whose weights sum to 0 ends the planning",
			step: explain.Step{Kind: "pass", Pass: 2, WeightSum: n(0), Distribute: n(2), Remaining: n(2)},
			want: "pass 2: 2 left, but the clusters not yet full weigh 0: nothing more can be placed",
		},
		{
			name: "a ceil share",
			step: explain.Step{Kind: "share", Cluster: "b", Pass: 1, Weight: n(2), WeightSum: n(3), Distribute: n(9), Share: n(6), Offered: n(6), UsedPreallocated: n(0), Replicas: n(6), Total: n(6), Remaining: n(3)},
			want: "b: ceil(9·2/3) = 6 → +6 = 6, 3 left",
		},
		{
			name: "a share cut to what is left",
			step: explain.Step{Kind: "share", Cluster: "a", Pass: 1, Weight: n(1), WeightSum: n(3), Distribute: n(1), Share: n(1), Offered: n(0), UsedPreallocated: n(0), Replicas: n(0), Total: n(4), Remaining: n(0)},
			want: "a: ceil(1·1/3) = 1, only 0 left → +0 = 4, 0 left",
		},
		{
			name: "a share capped at the max",
			step: explain.Step{Kind: "share", Cluster: "c", Pass: 1, Weight: n(1), WeightSum: n(2), Distribute: n(50), Share: n(25), Offered: n(25), UsedPreallocated: n(0), Replicas: n(20), Total: n(20), Remaining: n(30), CappedByMax: true, Full: true},
			want: "c: ceil(50·1/2) = 25 → +20 = 20, capped at its max (full), 30 left",
		},
		{
			name: "a minimum above the max cut down",
			step: explain.Step{Kind: "share", Cluster: "a", Pass: 1, Weight: n(1), WeightSum: n(1), Distribute: n(10), Share: n(10), Offered: n(10), UsedPreallocated: n(0), Replicas: n(-5), Total: n(5), Remaining: n(15), CappedByMax: true, Full: true},
			want: "a: ceil(10·1/1) = 10 → -5 = 5, capped at its max (full), 15 left",
		},
		{
			name: "a share out of running replicas, capped at the capacity",
			step: explain.Step{Kind: "share", Cluster: "a", Pass: 2, Weight: n(1), WeightSum: n(2), Distribute: n(3), Share: n(2), Offered: n(1), UsedPreallocated: n(1), Replicas: n(0), Total: n(15), Remaining: n(1), CappedByCapacity: true, Overflow: n(1), Full: true},
			want: "a: ceil(3·1/2) = 2, only 1 left, 1 of them already running → +0 = 15, capped at its capacity, overflow 1 (full), 1 left",
		},
		{
			name: "an overflow",
			step: explain.Step{Kind: "overflow", Cluster: "a", Overflow: n(7), Remaining: n(30)},
			want: "a: overflow 7",
		},
		{
			name: "an overflow trimmed to nothing",
			step: explain.Step{Kind: "overflow", Cluster: "a", Overflow: n(0), Remaining: n(0)},
			want: "a: overflow dropped: no replicas left unplaced",
		},
		{
			name: "nothing unplaced",
			step: explain.Step{Kind: "done", Remaining: n(0)},
			want: "unplaced: 0",
		},
		{
			name: "replicas that fit nowhere",
			step: explain.Step{Kind: "done", Remaining: n(30)},
			want: "unplaced: 30 (every cluster is full or weighs 0)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, explain.StepText(tt.step))
		})
	}
}

func TestOverrideText(t *testing.T) {
	t.Parallel()
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	long := `"` + string(bytes.Repeat([]byte("é"), 130)) + `"`
	tests := []struct {
		name string
		o    explain.Override
		want string
	}{
		{
			name: "a replace shows the old and the new value",
			o:    explain.Override{From: explain.FromOverrides, Field: "spec.overrides[0].clusterOverrides[1]", Op: "replace", Path: "/data/region", Old: raw(`"unknown"`), New: raw(`"eu-west-1"`)},
			want: `spec.overrides[0].clusterOverrides[1]: replace /data/region: "unknown" → "eu-west-1"`,
		},
		{
			name: "an add of a new member had no value",
			o:    explain.Override{From: explain.FromOverrides, Field: "spec.overrides[0].clusterOverrides[0]", Op: "add", Path: "/metadata/labels", New: raw(`{"a": "b"}`)},
			want: `spec.overrides[0].clusterOverrides[0]: add /metadata/labels: (none) → {"a":"b"}`,
		},
		{
			name: "a remove",
			o:    explain.Override{From: explain.FromOverrides, Field: "spec.overrides[1].clusterOverrides[0]", Op: "remove", Path: "/spec/paused", Old: raw(`true`)},
			want: `spec.overrides[1].clusterOverrides[0]: remove /spec/paused: true → (removed)`,
		},
		{
			name: "the preference's own override",
			o:    explain.Override{From: explain.FromPreference, Op: "replace", Path: "/spec/replicas", Old: raw(`1`), New: raw(`3`)},
			want: `ReplicaSchedulingPreference: replace /spec/replicas: 1 → 3`,
		},
		{
			name: "the user's replicas override with the planned value",
			o:    explain.Override{From: explain.FromOverridesSetByPreference, Field: "spec.overrides[0].clusterOverrides[0]", Op: "replace", Path: "/spec/replicas", Old: raw(`1`), New: raw(`6`), UserValue: raw(`10`)},
			want: `spec.overrides[0].clusterOverrides[0]: replace /spec/replicas: 1 → 6 (value 10 replaced by the ReplicaSchedulingPreference)`,
		},
		{
			name: "Secret data is not shown",
			o:    explain.Override{From: explain.FromOverrides, Field: "spec.overrides[0].clusterOverrides[0]", Op: "replace", Path: "/data/password", Redacted: true},
			want: `spec.overrides[0].clusterOverrides[0]: replace /data/password: (Secret data, not shown)`,
		},
		{
			name: "a long value is cut at a character boundary",
			o:    explain.Override{From: explain.FromOverrides, Field: "f", Op: "replace", Path: "/x", New: raw(long)},
			want: `f: replace /x: (none) → "` + string(bytes.Repeat([]byte("é"), 119)) + "…",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, explain.OverrideText(tt.o))
		})
	}
}

// TestTextIsTheSameOnATerminalWithoutColour: ✓ and ✗ do not depend on the
// terminal; colour only wraps them.
func TestTextIsTheSameOnATerminalWithoutColour(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	rep := &explain.Report{Objects: []explain.Object{{
		Kind: "FederatedConfigMap", Namespace: "shop", Name: "web", Source: "in.yaml:1",
		Placement: explain.Placement{
			Own: explain.Selection{
				Rule:     "clusterSelector",
				Terms:    []placement.Term{{Key: "region", Operator: "In", Values: []string{"eu", "us"}}},
				Members:  []placement.ClusterMatch{{Name: "a", Selected: true, Terms: []placement.TermMatch{{Matched: true, HasLabel: true, Value: "eu"}}}, {Name: "b", Terms: []placement.TermMatch{{}}}},
				Selected: []string{"a"},
			},
			Clusters: []string{"a"},
		},
	}}}
	want := `FederatedConfigMap shop/web  (in.yaml:1)
  Placement:
    own placement: clusterSelector (every term must match):
      ✓ a
          region In (eu, us): region=eu ✓
      ✗ b
          region In (eu, us): no region label ✗
      selected: a
    → placed in: a
`
	plain, _, _, _ := iostreams.Test()
	var out bytes.Buffer
	require.NoError(t, explain.Text(&out, rep, plain.ColorScheme()))
	assert.Equal(t, want, out.String())

	tty, _, _, _ := iostreams.Test()
	tty.SetTTY(true)
	out.Reset()
	require.NoError(t, explain.Text(&out, rep, tty.ColorScheme()))
	assert.Contains(t, out.String(), "\x1b[32m✓\x1b[0m a")
	assert.Contains(t, out.String(), "\x1b[31m✗\x1b[0m b")
}
