package karmada

import (
	"math"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// implicitPriority is how specifically a resource selector picks an object
// (pkg/util/selector.go, ImplicitPriority): by name beats by labels beats
// by kind alone.
type implicitPriority int

const (
	mismatch implicitPriority = iota
	matchAll
	matchLabelSelector
	matchName
)

func (p implicitPriority) String() string {
	switch p {
	case matchAll:
		return "matches all of its kind"
	case matchLabelSelector:
		return "label selector match"
	case matchName:
		return "name match"
	}
	return "no match"
}

// resource is what selectors look at in a plain object.
type resource struct {
	APIVersion, Kind, Namespace, Name string
	Labels                            map[string]string
}

// selectorPriority is Karmada's ResourceSelectorPriority
// (pkg/util/selector.go): apiVersion and kind must be equal, the namespace
// too when the selector names one; a name, when given, decides alone (the
// label selector is then ignored); else the label selector must match;
// else the selector matches every object of its kind.
func selectorPriority(r resource, rs resourceSelector) implicitPriority {
	if r.APIVersion != rs.APIVersion || r.Kind != rs.Kind || (rs.Namespace != "" && r.Namespace != rs.Namespace) {
		return mismatch
	}
	if rs.Name != "" {
		if rs.Name == r.Name {
			return matchName
		}
		return mismatch
	}
	if rs.LabelSelector == nil {
		return matchAll
	}
	s, err := metav1.LabelSelectorAsSelector(rs.LabelSelector)
	if err != nil || !s.Matches(labels.Set(r.Labels)) {
		return mismatch
	}
	return matchLabelSelector
}

// selectorsPriority is the best priority among selectors
// (ResourceMatchSelectorsPriority).
func selectorsPriority(r resource, selectors []resourceSelector) implicitPriority {
	best := mismatch
	for _, rs := range selectors {
		if p := selectorPriority(r, rs); p > best {
			best = p
		}
	}
	return best
}

// explicitPriority is spec.priority, 0 when unset
// (pkg/apis/policy/v1alpha1/propagation_helper.go).
func (p *propagationPolicy) explicitPriority() int32 {
	if p.Spec.Priority == nil {
		return 0
	}
	return *p.Spec.Priority
}

// highestPriority is Karmada's getHighestPriorityPropagationPolicy and
// getHighestPriorityClusterPropagationPolicy (pkg/detector/compare.go):
// among the policies that select r, the highest explicit priority, then the
// highest implicit priority, then the smallest name. Others are the other
// policies that select r, for explain.
func highestPriority(r resource, policies []*propagationPolicy) (chosen *propagationPolicy, implicit implicitPriority, others []*propagationPolicy) {
	bestExplicit := int32(math.MinInt32)
	var matched []*propagationPolicy
	for _, p := range policies {
		ip := selectorsPriority(r, p.Spec.ResourceSelectors)
		if ip == mismatch {
			continue
		}
		matched = append(matched, p)
		ep := p.explicitPriority()
		switch {
		case chosen == nil || ep > bestExplicit:
			chosen, implicit, bestExplicit = p, ip, ep
		case ep == bestExplicit && ip > implicit:
			chosen, implicit = p, ip
		case ep == bestExplicit && ip == implicit && p.Name < chosen.Name:
			chosen = p
		}
	}
	for _, p := range matched {
		if p != chosen {
			others = append(others, p)
		}
	}
	return chosen, implicit, others
}
