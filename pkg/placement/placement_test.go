package placement_test

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/placement"
)

// members is the federation most cases place into.
var members = []placement.Cluster{
	{Name: "ap-1", Labels: map[string]string{"region": "ap", "tier": "gold"}},
	{Name: "eu-1", Labels: map[string]string{"region": "eu", "tier": "gold", "gpu": "true"}},
	{Name: "eu-2", Labels: map[string]string{"region": "eu"}},
	{Name: "us-1", Labels: map[string]string{"region": "us", "tier": "silver"}},
	{Name: "dev"}, // no labels at all
}

func refs(names ...string) []federation.ClusterRef {
	out := []federation.ClusterRef{} // non-nil: an empty list means "no clusters"
	for _, n := range names {
		out = append(out, federation.ClusterRef{Name: n})
	}
	return out
}

func expr(key string, op metav1.LabelSelectorOperator, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		p       federation.Placement
		members []placement.Cluster
		want    placement.Selection
		wantErr []string // every line of the error, in order
	}{
		{
			name: "listed clusters win over the selector",
			p: federation.Placement{
				Clusters:        refs("us-1"),
				ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}},
			},
			want: placement.Selection{Clusters: []string{"us-1"}, Rule: placement.RuleClusters},
		},
		{
			name: "an empty clusters list selects nothing even with a selector that matches everything",
			p:    federation.Placement{Clusters: refs(), ClusterSelector: &metav1.LabelSelector{}},
			want: placement.Selection{Rule: placement.RuleClusters},
		},
		{
			name: "an invalid selector is ignored when the clusters list decides",
			p: federation.Placement{
				Clusters:        refs("eu-1"),
				ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", "Near")}},
			},
			want: placement.Selection{Clusters: []string{"eu-1"}, Rule: placement.RuleClusters},
		},
		{
			name: "no clusters list and no selector selects nothing",
			p:    federation.Placement{},
			want: placement.Selection{Rule: placement.RuleNone},
		},
		{
			name: "an empty selector selects every member",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{}},
			want: placement.Selection{Clusters: []string{"ap-1", "dev", "eu-1", "eu-2", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "a selector with empty matchLabels and matchExpressions selects every member",
			p: federation.Placement{ClusterSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{}, MatchExpressions: []metav1.LabelSelectorRequirement{},
			}},
			want: placement.Selection{Clusters: []string{"ap-1", "dev", "eu-1", "eu-2", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "matchLabels selects members with every listed label",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu", "tier": "gold"}}},
			want: placement.Selection{Clusters: []string{"eu-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "matchLabels that no member has selects nothing",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "mars"}}},
			want: placement.Selection{Rule: placement.RuleSelector},
		},
		{
			name: "In selects members whose label has one of the values",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", metav1.LabelSelectorOpIn, "ap", "us")}}},
			want: placement.Selection{Clusters: []string{"ap-1", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "NotIn selects members whose label has another value and members lacking the key",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpNotIn, "gold")}}},
			want: placement.Selection{Clusters: []string{"dev", "eu-2", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "Exists selects members that have the key whatever its value",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpExists)}}},
			want: placement.Selection{Clusters: []string{"ap-1", "eu-1", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "DoesNotExist selects members that lack the key",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpDoesNotExist)}}},
			want: placement.Selection{Clusters: []string{"dev", "eu-2"}, Rule: placement.RuleSelector},
		},
		{
			name: "matchLabels and matchExpressions are ANDed",
			p: federation.Placement{ClusterSelector: &metav1.LabelSelector{
				MatchLabels:      map[string]string{"region": "eu"},
				MatchExpressions: []metav1.LabelSelectorRequirement{expr("gpu", metav1.LabelSelectorOpDoesNotExist)},
			}},
			want: placement.Selection{Clusters: []string{"eu-2"}, Rule: placement.RuleSelector},
		},
		{
			name: "several expressions are ANDed",
			p: federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				expr("region", metav1.LabelSelectorOpIn, "eu", "us"),
				expr("tier", metav1.LabelSelectorOpExists),
			}}},
			want: placement.Selection{Clusters: []string{"eu-1", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "listed names that are not members are dropped and reported",
			p:    federation.Placement{Clusters: refs("eu-3", "us-1", "", "ap-9")},
			want: placement.Selection{Clusters: []string{"us-1"}, Unknown: []string{"", "ap-9", "eu-3"}, Rule: placement.RuleClusters},
		},
		{
			name: "duplicate listed names are selected once and reported once",
			p:    federation.Placement{Clusters: refs("us-1", "eu-1", "us-1", "zz", "zz")},
			want: placement.Selection{Clusters: []string{"eu-1", "us-1"}, Unknown: []string{"zz"}, Rule: placement.RuleClusters},
		},
		{
			name:    "duplicate members are selected once",
			p:       federation.Placement{ClusterSelector: &metav1.LabelSelector{}},
			members: []placement.Cluster{{Name: "b"}, {Name: "a"}, {Name: "b"}},
			want:    placement.Selection{Clusters: []string{"a", "b"}, Rule: placement.RuleSelector},
		},
		{
			name:    "without members every listed name is unknown",
			p:       federation.Placement{Clusters: refs("eu-1")},
			members: []placement.Cluster{},
			want:    placement.Selection{Unknown: []string{"eu-1"}, Rule: placement.RuleClusters},
		},
		{
			name:    "an unknown operator is an error naming the expression",
			p:       federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", "in", "eu")}}},
			wantErr: []string{`spec.placement.clusterSelector.matchExpressions[0].operator: "in" is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)`},
		},
		{
			name:    "In without values is an error",
			p:       federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", metav1.LabelSelectorOpIn)}}},
			wantErr: []string{`spec.placement.clusterSelector.matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`},
		},
		{
			name: "every selector problem is reported, matchLabels by key then expressions in order",
			p: federation.Placement{ClusterSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"z": "ok", "b": "bad value!", "a": "ok"},
				MatchExpressions: []metav1.LabelSelectorRequirement{
					expr("gpu", metav1.LabelSelectorOpExists, "true"),
					expr("region", metav1.LabelSelectorOpIn, "eu"),
					expr("region", "Near"),
				},
			}},
			wantErr: []string{
				`spec.placement.clusterSelector.matchLabels[b]: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
				`spec.placement.clusterSelector.matchExpressions[0].values: Invalid value: ["true"]: values set must be empty for exists and does not exist`,
				`spec.placement.clusterSelector.matchExpressions[2].operator: "Near" is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := tt.members
			if in == nil {
				in = members
			}
			got, err := placement.Select(tt.p, in)
			if tt.wantErr != nil {
				require.Error(t, err)
				assert.Equal(t, tt.wantErr, errorLines(err))
				var fe *placement.FieldError
				assert.ErrorAs(t, err, &fe, "each problem is a *FieldError")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSelectBySelector(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		p       federation.Placement
		want    placement.Selection
		wantErr string
	}{
		{
			name: "the clusters list is ignored and the selector decides",
			p: federation.Placement{
				Clusters:        refs("us-1"),
				ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"region": "eu"}},
			},
			want: placement.Selection{Clusters: []string{"eu-1", "eu-2"}, Rule: placement.RuleSelector},
		},
		{
			name: "a missing selector selects nothing even with a clusters list",
			p:    federation.Placement{Clusters: refs("us-1")},
			want: placement.Selection{Rule: placement.RuleNone},
		},
		{
			name: "an empty selector selects every member",
			p:    federation.Placement{Clusters: refs(), ClusterSelector: &metav1.LabelSelector{}},
			want: placement.Selection{Clusters: []string{"ap-1", "dev", "eu-1", "eu-2", "us-1"}, Rule: placement.RuleSelector},
		},
		{
			name: "an invalid selector is an error even with a clusters list",
			p: federation.Placement{
				Clusters:        refs("us-1"),
				ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", metav1.LabelSelectorOpNotIn)}},
			},
			wantErr: `spec.placement.clusterSelector.matchExpressions[0].values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := placement.SelectBySelector(tt.p, members)
			if tt.wantErr != "" {
				require.EqualError(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestIntersect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b []string
		want []string
	}{
		{name: "names in both are kept, sorted", a: []string{"us-1", "eu-1", "ap-1"}, b: []string{"eu-1", "us-1", "eu-2"}, want: []string{"eu-1", "us-1"}},
		{name: "duplicates are kept once", a: []string{"a", "a", "b"}, b: []string{"a", "b", "b"}, want: []string{"a", "b"}},
		{name: "disjoint lists give nothing", a: []string{"a"}, b: []string{"b"}, want: nil},
		{name: "an empty side gives nothing", a: []string{"a"}, b: nil, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, placement.Intersect(tt.a, tt.b))
			assert.Equal(t, tt.want, placement.Intersect(tt.b, tt.a), "intersection is symmetric")
		})
	}
}

// TestSelectIgnoresInputOrder checks the property that the order of the
// members, of the clusters list and of the selector's expressions never
// changes the selection.
func TestSelectIgnoresInputOrder(t *testing.T) {
	t.Parallel()
	placements := []federation.Placement{
		{Clusters: refs("us-1", "nope", "eu-1", "us-1", "dev")},
		{ClusterSelector: &metav1.LabelSelector{}},
		{ClusterSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"region": "eu"},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				expr("tier", metav1.LabelSelectorOpNotIn, "silver", "bronze"),
				expr("gpu", metav1.LabelSelectorOpExists),
			},
		}},
		{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			expr("region", metav1.LabelSelectorOpIn, "us", "ap", "eu"),
			expr("tier", metav1.LabelSelectorOpDoesNotExist),
		}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i, p := range placements {
		want, err := placement.Select(p, members)
		require.NoError(t, err)
		for range 50 {
			shuffled := slices.Clone(members)
			rng.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
			q := federation.Placement{Clusters: slices.Clone(p.Clusters)}
			rng.Shuffle(len(q.Clusters), func(a, b int) { q.Clusters[a], q.Clusters[b] = q.Clusters[b], q.Clusters[a] })
			if p.ClusterSelector != nil {
				q.ClusterSelector = p.ClusterSelector.DeepCopy()
				es := q.ClusterSelector.MatchExpressions
				rng.Shuffle(len(es), func(a, b int) { es[a], es[b] = es[b], es[a] })
			}
			got, err := placement.Select(q, shuffled)
			require.NoError(t, err)
			assert.Equal(t, want, got, "placement %d", i)
		}
	}
}

// TestSelectDoesNotModifyInputs pins that neither the placement nor the
// members are written to.
func TestSelectDoesNotModifyInputs(t *testing.T) {
	t.Parallel()
	p := federation.Placement{ClusterSelector: &metav1.LabelSelector{
		MatchLabels:      map[string]string{"region": "eu"},
		MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpIn, "gold", "silver")},
	}}
	before := p.ClusterSelector.DeepCopy()
	in := slices.Clone(members)
	want := slices.Clone(members) // a deep copy: the label maps too
	for i, m := range want {
		want[i].Labels = maps.Clone(m.Labels)
		want[i].Zones = slices.Clone(m.Zones)
	}
	_, err := placement.Select(p, in)
	require.NoError(t, err)
	assert.Equal(t, before, p.ClusterSelector)
	assert.Equal(t, want, in)
}

func errorLines(err error) []string {
	var lines []string
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			lines = append(lines, e.Error())
		}
		return lines
	}
	return []string{err.Error()}
}
