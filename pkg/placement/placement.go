package placement

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Cluster is a member cluster as placement sees it. Labels are what a
// clusterSelector matches (KubeFed matched the KubeFedCluster's
// metadata.labels); nil and empty are the same.
type Cluster struct {
	Name   string
	Labels map[string]string
	// Provider, Region and Zones are the member's location, for input
	// dialects that place by it (Karmada's fieldSelector); KubeFed's
	// placement uses names and labels only.
	Provider string
	Region   string
	Zones    []string
	// Unreachable says a live probe found the member not answering; set
	// only by commands that reach members, for placements that depend on
	// it (Karmada's clusterAffinities). Offline every member answers.
	Unreachable bool
	// Cordoned members are left out of replica plans (fedctl cordon).
	Cordoned bool
	// Migrations move the objects they select from this member to
	// another (fedctl migrate), in order.
	Migrations []Migration
}

// Rule names the part of a placement that decided a Selection.
type Rule string

const (
	// RuleClusters means spec.placement.clusters was present and decided
	// alone; clusterSelector was ignored, even when it was invalid.
	RuleClusters Rule = "clusters"
	// RuleSelector means clusters was absent and the members whose labels
	// match clusterSelector were selected.
	RuleSelector Rule = "clusterSelector"
	// RuleNone means neither clusters nor clusterSelector was given (or, for
	// SelectBySelector, no clusterSelector), which selects nothing.
	RuleNone Rule = "none"
)

// Selection is the outcome of a placement.
type Selection struct {
	// Clusters are the selected member names, sorted, without duplicates;
	// nil when nothing is selected.
	Clusters []string
	// Unknown are names in spec.placement.clusters that are not members,
	// sorted, without duplicates. They are not in Clusters: KubeFed
	// intersected the placement with the registered clusters and dropped
	// them silently. Only RuleClusters can produce them.
	Unknown []string
	// Rule says which part of the placement decided.
	Rule Rule
}

// FieldError is one problem with one field of a placement. Field is the
// field's path in the federated object, such as
// spec.placement.clusterSelector.matchExpressions[0].operator.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

var selectorPath = field.NewPath("spec", "placement", "clusterSelector")

// Select returns the members p selects, with KubeFed's rules:
//
//   - A non-nil p.Clusters decides alone, even when empty (no clusters), and
//     p.ClusterSelector is then ignored, even when it is invalid, because
//     KubeFed only parsed the selector when it used it.
//   - Otherwise a nil p.ClusterSelector selects nothing; a selector with no
//     matchLabels and no matchExpressions ({} or {matchLabels: {}}) selects
//     every member; else matchLabels and matchExpressions (In, NotIn,
//     Exists, DoesNotExist) are ANDed over each member's labels, as
//     metav1.LabelSelectorAsSelector does. NotIn matches members that lack
//     the key.
//   - The selection is limited to clusters; listed names that are not
//     members go to Selection.Unknown.
//
// An invalid selector is an error (KubeFed's ComputePlacementFailed) that
// joins one *FieldError per problem, in field order. The order of clusters
// and of p.Clusters does not matter. Inputs are not modified.
func Select(p federation.Placement, clusters []Cluster) (Selection, error) {
	m, err := newMatcher(p, false, false)
	if err != nil {
		return Selection{}, err
	}
	return m.selectFrom(clusters), nil
}

// SelectBySelector is Select with p.Clusters ignored: only
// p.ClusterSelector counts, and a nil selector selects nothing. It is
// KubeFed's selectorOnly placement, which a ReplicaSchedulingPreference with
// intersectWithClusterSelector uses to narrow the clusters it plans for.
// KubeFed applied it to the FederatedNamespace of a namespaced object too.
func SelectBySelector(p federation.Placement, clusters []Cluster) (Selection, error) {
	m, err := newMatcher(p, true, false)
	if err != nil {
		return Selection{}, err
	}
	return m.selectFrom(clusters), nil
}

// Intersect returns the names in both a and b, sorted, without duplicates.
// A namespaced object goes only to the clusters that both its own placement
// and the placement of the FederatedNamespace named after its namespace
// select (KubeFed's ComputeNamespacedPlacement); what a missing
// FederatedNamespace means is the caller's decision.
func Intersect(a, b []string) []string {
	inB := make(map[string]struct{}, len(b))
	for _, name := range b {
		inB[name] = struct{}{}
	}
	both := make(map[string]struct{})
	for _, name := range a {
		if _, ok := inB[name]; ok {
			both[name] = struct{}{}
		}
	}
	return sortedKeys(both)
}

// matcher is a compiled placement: the one place where KubeFed's rules
// decide whether a single cluster is selected. Select and SelectBySelector
// apply it to every member; an explanation per cluster can use the same
// rule and selector (labels.Selector.Requirements) without restating them.
type matcher struct {
	rule     Rule
	listed   map[string]struct{} // RuleClusters
	selector labels.Selector     // RuleSelector
	terms    []term              // RuleSelector, when asked for (explain.go)
}

// newMatcher compiles p. withTerms keeps the selector's requirements one by
// one, in field order, for an explanation.
func newMatcher(p federation.Placement, selectorOnly, withTerms bool) (matcher, error) {
	if !selectorOnly && p.Clusters != nil {
		listed := make(map[string]struct{}, len(p.Clusters))
		for _, c := range p.Clusters {
			listed[c.Name] = struct{}{}
		}
		return matcher{rule: RuleClusters, listed: listed}, nil
	}
	if p.ClusterSelector == nil {
		return matcher{rule: RuleNone}, nil
	}
	var terms *[]term
	m := matcher{rule: RuleSelector}
	if withTerms {
		terms = &m.terms
	}
	sel, err := compileSelector(p.ClusterSelector, terms)
	if err != nil {
		return matcher{}, err
	}
	m.selector = sel
	return m, nil
}

// matches reports whether c is selected, before the result is limited to
// members.
func (m matcher) matches(c Cluster) bool {
	switch m.rule {
	case RuleClusters:
		_, ok := m.listed[c.Name]
		return ok
	case RuleSelector:
		return m.selector.Matches(labels.Set(c.Labels))
	default:
		return false
	}
}

func (m matcher) selectFrom(clusters []Cluster) Selection {
	members := make(map[string]struct{}, len(clusters))
	selected := make(map[string]struct{})
	for _, c := range clusters {
		members[c.Name] = struct{}{}
		if m.matches(c) {
			selected[c.Name] = struct{}{}
		}
	}
	unknown := make(map[string]struct{})
	for name := range m.listed {
		if _, ok := members[name]; !ok {
			unknown[name] = struct{}{}
		}
	}
	return Selection{Clusters: sortedKeys(selected), Unknown: sortedKeys(unknown), Rule: m.rule}
}

// compileSelector is metav1.LabelSelectorAsSelector with deterministic,
// complete error reporting: it makes the same labels.NewRequirement calls
// first, matchLabels in key order, then matchExpressions in list order, and
// reports every failure, where LabelSelectorAsSelector stops at the first
// one it meets in Go's random map order. When terms is not nil, each
// requirement is appended to it with the field it comes from.
func compileSelector(ls *metav1.LabelSelector, terms *[]term) (labels.Selector, error) {
	var errs []error
	for _, k := range slices.Sorted(maps.Keys(ls.MatchLabels)) {
		path := selectorPath.Child("matchLabels").Key(k)
		req, err := labels.NewRequirement(k, selection.Equals, []string{ls.MatchLabels[k]})
		if err != nil {
			errs = append(errs, fieldErrors(path, err, true)...)
		} else if terms != nil {
			*terms = append(*terms, term{Term{Field: path.String(), Key: k, Operator: OpEquals, Values: []string{ls.MatchLabels[k]}}, *req})
		}
	}
	for i, expr := range ls.MatchExpressions {
		path := selectorPath.Child("matchExpressions").Index(i)
		op, ok := selectorOperators[expr.Operator]
		if !ok {
			errs = append(errs, &FieldError{
				Field: path.Child("operator").String(),
				Err:   fmt.Errorf("%q is not a valid label selector operator (want In, NotIn, Exists or DoesNotExist)", expr.Operator),
			})
			continue
		}
		req, err := labels.NewRequirement(expr.Key, op, append([]string(nil), expr.Values...), field.WithPath(path))
		if err != nil {
			errs = append(errs, fieldErrors(path, err, false)...)
		} else if terms != nil {
			*terms = append(*terms, term{Term{Field: path.String(), Key: expr.Key, Operator: string(expr.Operator), Values: slices.Clone(expr.Values)}, *req})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return nil, &FieldError{Field: selectorPath.String(), Err: err}
	}
	return sel, nil
}

// selectorOperators maps the operators metav1.LabelSelectorAsSelector
// accepts to their selection operators.
var selectorOperators = map[metav1.LabelSelectorOperator]selection.Operator{
	metav1.LabelSelectorOpIn:           selection.In,
	metav1.LabelSelectorOpNotIn:        selection.NotIn,
	metav1.LabelSelectorOpExists:       selection.Exists,
	metav1.LabelSelectorOpDoesNotExist: selection.DoesNotExist,
}

// fieldErrors turns the aggregate labels.NewRequirement returns into one
// *FieldError per problem. The field errors of a matchLabels entry are all
// reported at the entry, which has no key or values fields of its own.
func fieldErrors(path *field.Path, err error, atPath bool) []error {
	var list interface{ Errors() []error }
	if !errors.As(err, &list) {
		return []error{&FieldError{Field: path.String(), Err: err}}
	}
	var out []error
	for _, e := range list.Errors() {
		fe := &FieldError{Field: path.String(), Err: e}
		var ferr *field.Error
		if errors.As(e, &ferr) {
			fe.Err = errors.New(ferr.ErrorBody())
			if !atPath {
				fe.Field = ferr.Field
			}
		}
		out = append(out, fe)
	}
	return out
}

func sortedKeys(set map[string]struct{}) []string {
	if len(set) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(set))
}
