package placement

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/fedctl/fedctl/pkg/federation"
)

// OpEquals is the operator of a Term that comes from matchLabels.
const OpEquals = "="

// Term is one requirement of a clusterSelector: a matchLabels entry
// (Operator "=") or a matchExpressions item (In, NotIn, Exists,
// DoesNotExist). Field is where it is in the federated object, such as
// spec.placement.clusterSelector.matchExpressions[0].
type Term struct {
	Field    string   `json:"field"`
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// String writes the term as a person reads it: "tier=prod",
// "region In (eu, us)", "gpu Exists".
func (t Term) String() string {
	switch t.Operator {
	case OpEquals:
		return t.Key + "=" + strings.Join(t.Values, ",")
	case "Exists", "DoesNotExist":
		return t.Key + " " + t.Operator
	}
	return t.Key + " " + t.Operator + " (" + strings.Join(t.Values, ", ") + ")"
}

// term is a Term with the requirement compiled from it.
type term struct {
	Term
	req labels.Requirement
}

// TermMatch is how one member fares against one Term.
type TermMatch struct {
	Matched bool `json:"matched"`
	// HasLabel says whether the member has a label with the term's key,
	// and Value is that label's value.
	HasLabel bool   `json:"hasLabel"`
	Value    string `json:"value,omitempty"`
}

// ClusterMatch is the decision for one member.
type ClusterMatch struct {
	Name     string `json:"name"`
	Selected bool   `json:"selected"`
	// Listed says that spec.placement.clusters names the member
	// (RuleClusters only).
	Listed bool `json:"listed,omitempty"`
	// Terms has one entry per Explanation.Terms, in the same order
	// (RuleSelector only).
	Terms []TermMatch `json:"terms,omitempty"`
}

// Explanation says why a placement selects what it selects.
type Explanation struct {
	Selection
	// SelectorOnly says that spec.placement.clusters was not consulted
	// (SelectBySelector's rule).
	SelectorOnly bool
	// Listed are the names in spec.placement.clusters, sorted, without
	// duplicates (RuleClusters only).
	Listed []string
	// Terms are the clusterSelector's requirements: matchLabels in key
	// order, then matchExpressions in list order (RuleSelector only). A
	// selector without any, {} or {matchLabels: {}}, selects every member.
	Terms []Term
	// Members has every member, sorted by name.
	Members []ClusterMatch
}

// Explain is Select with the reasons: the rule that decided and, for every
// member, whether it was listed or how its labels fared against each term
// of the selector. Selected and the Selection come from the same rule that
// Select applies; a member is selected by a selector exactly when it
// matches every term. Errors are Select's. Inputs are not modified.
func Explain(p federation.Placement, clusters []Cluster) (Explanation, error) {
	return explain(p, clusters, false)
}

// ExplainBySelector is SelectBySelector with the reasons, as Explain.
func ExplainBySelector(p federation.Placement, clusters []Cluster) (Explanation, error) {
	return explain(p, clusters, true)
}

func explain(p federation.Placement, clusters []Cluster, selectorOnly bool) (Explanation, error) {
	m, err := newMatcher(p, selectorOnly, true)
	if err != nil {
		return Explanation{}, err
	}
	ex := Explanation{Selection: m.selectFrom(clusters), SelectorOnly: selectorOnly}
	if m.rule == RuleClusters {
		ex.Listed = sortedKeys(m.listed)
	}
	for _, t := range m.terms {
		ex.Terms = append(ex.Terms, t.Term)
	}
	sorted := slices.Clone(clusters)
	slices.SortFunc(sorted, func(a, b Cluster) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range sorted {
		cm := ClusterMatch{Name: c.Name, Selected: m.matches(c)}
		if m.rule == RuleClusters {
			_, cm.Listed = m.listed[c.Name]
		}
		if len(m.terms) > 0 {
			set := labels.Set(c.Labels)
			cm.Terms = make([]TermMatch, len(m.terms))
			for i, t := range m.terms {
				v, has := c.Labels[t.Key]
				cm.Terms[i] = TermMatch{Matched: t.req.Matches(set), HasLabel: has, Value: v}
			}
		}
		ex.Members = append(ex.Members, cm)
	}
	return ex, nil
}
