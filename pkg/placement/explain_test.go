package placement_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/placement"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	euGold := federation.Placement{ClusterSelector: &metav1.LabelSelector{
		MatchLabels:      map[string]string{"tier": "gold"},
		MatchExpressions: []metav1.LabelSelectorRequirement{expr("region", metav1.LabelSelectorOpIn, "eu", "us")},
	}}
	tests := []struct {
		name         string
		p            federation.Placement
		selectorOnly bool
		want         placement.Explanation
	}{
		{
			name: "a selector is explained term by term for every member, matchLabels first",
			p:    euGold,
			want: placement.Explanation{
				Selection: placement.Selection{Clusters: []string{"eu-1"}, Rule: placement.RuleSelector},
				Terms: []placement.Term{
					{Field: "spec.placement.clusterSelector.matchLabels[tier]", Key: "tier", Operator: "=", Values: []string{"gold"}},
					{Field: "spec.placement.clusterSelector.matchExpressions[0]", Key: "region", Operator: "In", Values: []string{"eu", "us"}},
				},
				Members: []placement.ClusterMatch{
					{Name: "ap-1", Terms: []placement.TermMatch{{Matched: true, HasLabel: true, Value: "gold"}, {HasLabel: true, Value: "ap"}}},
					{Name: "dev", Terms: []placement.TermMatch{{}, {}}},
					{Name: "eu-1", Selected: true, Terms: []placement.TermMatch{{Matched: true, HasLabel: true, Value: "gold"}, {Matched: true, HasLabel: true, Value: "eu"}}},
					{Name: "eu-2", Terms: []placement.TermMatch{{}, {Matched: true, HasLabel: true, Value: "eu"}}},
					{Name: "us-1", Terms: []placement.TermMatch{{HasLabel: true, Value: "silver"}, {Matched: true, HasLabel: true, Value: "us"}}},
				},
			},
		},
		{
			name: "listed clusters decide and unknown names are dropped",
			p:    federation.Placement{Clusters: refs("us-1", "nope"), ClusterSelector: &metav1.LabelSelector{}},
			want: placement.Explanation{
				Selection: placement.Selection{Clusters: []string{"us-1"}, Unknown: []string{"nope"}, Rule: placement.RuleClusters},
				Listed:    []string{"nope", "us-1"},
				Members: []placement.ClusterMatch{
					{Name: "ap-1"}, {Name: "dev"}, {Name: "eu-1"}, {Name: "eu-2"}, {Name: "us-1", Selected: true, Listed: true},
				},
			},
		},
		{
			name: "an empty selector has no terms and selects every member",
			p:    federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchLabels: map[string]string{}}},
			want: placement.Explanation{
				Selection: placement.Selection{Clusters: []string{"ap-1", "dev", "eu-1", "eu-2", "us-1"}, Rule: placement.RuleSelector},
				Members: []placement.ClusterMatch{
					{Name: "ap-1", Selected: true}, {Name: "dev", Selected: true}, {Name: "eu-1", Selected: true}, {Name: "eu-2", Selected: true}, {Name: "us-1", Selected: true},
				},
			},
		},
		{
			name: "no selector selects nothing",
			p:    federation.Placement{},
			want: placement.Explanation{
				Selection: placement.Selection{Rule: placement.RuleNone},
				Members:   []placement.ClusterMatch{{Name: "ap-1"}, {Name: "dev"}, {Name: "eu-1"}, {Name: "eu-2"}, {Name: "us-1"}},
			},
		},
		{
			name:         "selector only ignores the clusters list",
			p:            federation.Placement{Clusters: refs("us-1"), ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("tier", metav1.LabelSelectorOpDoesNotExist)}}},
			selectorOnly: true,
			want: placement.Explanation{
				Selection:    placement.Selection{Clusters: []string{"dev", "eu-2"}, Rule: placement.RuleSelector},
				SelectorOnly: true,
				Terms:        []placement.Term{{Field: "spec.placement.clusterSelector.matchExpressions[0]", Key: "tier", Operator: "DoesNotExist"}},
				Members: []placement.ClusterMatch{
					{Name: "ap-1", Terms: []placement.TermMatch{{HasLabel: true, Value: "gold"}}},
					{Name: "dev", Selected: true, Terms: []placement.TermMatch{{Matched: true}}},
					{Name: "eu-1", Terms: []placement.TermMatch{{HasLabel: true, Value: "gold"}}},
					{Name: "eu-2", Selected: true, Terms: []placement.TermMatch{{Matched: true}}},
					{Name: "us-1", Terms: []placement.TermMatch{{HasLabel: true, Value: "silver"}}},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			explain := placement.Explain
			if tt.selectorOnly {
				explain = placement.ExplainBySelector
			}
			got, err := explain(tt.p, members)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}

	_, err := placement.Explain(federation.Placement{ClusterSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{expr("x", "Near")}}}, members)
	require.EqualError(t, err, `spec.placement.clusterSelector.matchExpressions[0].operator: "Near" is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)`)
}

func TestTermString(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		term placement.Term
		want string
	}{
		{placement.Term{Key: "tier", Operator: "=", Values: []string{"prod"}}, "tier=prod"},
		{placement.Term{Key: "region", Operator: "In", Values: []string{"eu", "us"}}, "region In (eu, us)"},
		{placement.Term{Key: "region", Operator: "NotIn", Values: []string{"ap"}}, "region NotIn (ap)"},
		{placement.Term{Key: "gpu", Operator: "Exists"}, "gpu Exists"},
		{placement.Term{Key: "gpu", Operator: "DoesNotExist"}, "gpu DoesNotExist"},
	} {
		assert.Equal(t, tt.want, tt.term.String())
	}
}

// TestExplainAgreesWithSelect: on random selectors and members, the
// explanation selects what Select selects, and a selector selects a member
// exactly when every term matches.
func TestExplainAgreesWithSelect(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	keys, values := []string{"region", "tier", "gpu"}, []string{"eu", "us", "gold", "true"}
	ops := []metav1.LabelSelectorOperator{metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn, metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist}
	for range 2000 {
		var p federation.Placement
		switch rng.IntN(4) {
		case 0:
			p.Clusters = refs(members[rng.IntN(len(members))].Name, "unknown")
		case 1: // no selector
		default:
			sel := &metav1.LabelSelector{}
			if rng.IntN(2) == 0 {
				sel.MatchLabels = map[string]string{keys[rng.IntN(3)]: values[rng.IntN(4)]}
			}
			for range rng.IntN(3) {
				op := ops[rng.IntN(4)]
				e := expr(keys[rng.IntN(3)], op)
				if op == metav1.LabelSelectorOpIn || op == metav1.LabelSelectorOpNotIn {
					e.Values = []string{values[rng.IntN(4)], values[rng.IntN(4)]}
				}
				sel.MatchExpressions = append(sel.MatchExpressions, e)
			}
			p.ClusterSelector = sel
		}
		want, err := placement.Select(p, members)
		require.NoError(t, err)
		got, err := placement.Explain(p, members)
		require.NoError(t, err)
		require.Equal(t, want, got.Selection, "%+v", p)
		for _, m := range got.Members {
			if got.Rule != placement.RuleSelector {
				continue
			}
			all := true
			for _, tm := range m.Terms {
				all = all && tm.Matched
			}
			require.Equal(t, m.Selected, all, "%s with %+v", m.Name, p.ClusterSelector)
		}
	}
}
