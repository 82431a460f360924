package karmada

import (
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/fedctl/fedctl/pkg/placement"
)

// The keys a fieldSelector may use (pkg/util/selector.go, ProviderField,
// RegionField, ZoneField); the validating webhook allows In and NotIn only
// (pkg/util/validation/validation.go, ValidateClusterAffinity).
const (
	providerField = "provider"
	regionField   = "region"
	zoneField     = "zone"
)

// clusterMatches is Karmada's ClusterMatches (pkg/util/selector.go): exclude
// wins, then the label selector, the field selector (zone against the
// member's zones, provider and region as a node-selector requirement) and
// the names, all of which must hold. An empty affinity matches every
// member. A selector that does not parse matches nothing, as upstream;
// validation reports it first.
func clusterMatches(c placement.Cluster, a clusterAffinity) bool {
	if slices.Contains(a.ExcludeClusters, c.Name) {
		return false
	}
	if a.LabelSelector != nil {
		s, err := metav1.LabelSelectorAsSelector(a.LabelSelector)
		if err != nil || !s.Matches(labels.Set(c.Labels)) {
			return false
		}
	}
	if a.FieldSelector != nil {
		fields := labels.Set{}
		if c.Provider != "" {
			fields[providerField] = c.Provider
		}
		if c.Region != "" {
			fields[regionField] = c.Region
		}
		for _, r := range a.FieldSelector.MatchExpressions {
			if r.Key == zoneField {
				if !zonesMatch(r, c.Zones) {
					return false
				}
				continue
			}
			ok, err := requirementMatches(r, fields)
			if err != nil || !ok {
				return false
			}
		}
	}
	return len(a.ClusterNames) == 0 || slices.Contains(a.ClusterNames, c.Name)
}

// zonesMatch is Karmada's matchZones: In needs one of the member's zones
// in the values, NotIn none of them.
func zonesMatch(r fieldRequirement, zones []string) bool {
	switch r.Operator {
	case "In":
		for _, z := range zones {
			if slices.Contains(r.Values, z) {
				return true
			}
		}
		return false
	case "NotIn":
		for _, z := range zones {
			if slices.Contains(r.Values, z) {
				return false
			}
		}
		return true
	case "Exists":
		return len(zones) > 0
	case "DoesNotExist":
		return len(zones) == 0
	}
	return false
}

func requirementMatches(r fieldRequirement, fields labels.Set) (bool, error) {
	var op selection.Operator
	switch r.Operator {
	case "In":
		op = selection.In
	case "NotIn":
		op = selection.NotIn
	case "Exists":
		op = selection.Exists
	case "DoesNotExist":
		op = selection.DoesNotExist
	default:
		return false, fmt.Errorf("operator %q is not supported", r.Operator)
	}
	req, err := labels.NewRequirement(r.Key, op, r.Values)
	if err != nil {
		return false, err
	}
	return req.Matches(fields), nil
}

// matching are the members a affinity selects, in the members' order.
func matching(members []placement.Cluster, a clusterAffinity) []placement.Cluster {
	var out []placement.Cluster
	for _, c := range members {
		if clusterMatches(c, a) {
			out = append(out, c)
		}
	}
	return out
}
