package karmada

import (
	"github.com/fedctl/fedctl/pkg/dialect"
)

// Policies are the input's propagation policies, for another dialect whose
// objects Karmada policies may place: Federation v1's annotated workloads
// are split by their annotation but placed by the policy that selects
// them. Problems in the policies are this dialect's to report (Read);
// here a policy that does not decode is skipped.
type Policies struct {
	set *policySet
}

// ReadPolicies decodes the propagation policies of in, or returns nil
// when there are none. It must be called before this dialect's Read, which
// frees the documents it reads.
func ReadPolicies(in dialect.Input) *Policies {
	ps := &policySet{propagation: map[string][]*propagationPolicy{}, override: map[string][]*overridePolicy{}}
	found := false
	for _, doc := range in.Docs {
		if doc.Err != nil || doc.Parsed == nil || !isPolicy(doc.Head) {
			continue
		}
		switch doc.Head.Kind {
		case PropagationPolicyKind, ClusterPropagationPolicyKind:
			if ps.add(in, doc) == nil {
				found = true
			}
		}
	}
	if !found {
		return nil
	}
	return &Policies{set: ps}
}

// Placed is where a policy places an object, and which policy.
type Placed struct {
	// Members are the candidates the policy's affinity selects, in the
	// members' order.
	Members []string
	// Policy names the policy: "PropagationPolicy shop/web".
	Policy string
	// Notes say why, for explain.
	Notes []string
}

// Place says where the policy that selects the object (apiVersion, kind,
// namespace, name, labels) places it, with Karmada's choice of policy;
// false when no policy selects it. Replica scheduling is not applied: the
// caller divides replicas its own way.
func (p *Policies) Place(in dialect.Input, apiVersion, kind, namespace, name string, labels map[string]string) (Placed, bool) {
	if p == nil {
		return Placed{}, false
	}
	r := resource{APIVersion: apiVersion, Kind: kind, Namespace: namespace, Name: name, Labels: labels}
	var chosen *propagationPolicy
	var implicit implicitPriority
	var others, beaten []*propagationPolicy
	if namespace != "" {
		chosen, implicit, others = highestPriority(r, p.set.propagation[namespace])
	}
	if chosen == nil {
		chosen, implicit, others = highestPriority(r, p.set.clusterPropagation)
	} else if c, _, rest := highestPriority(r, p.set.clusterPropagation); c != nil {
		beaten = append(rest, c)
	}
	if chosen == nil {
		return Placed{}, false
	}
	cands, why := candidates(in.Members, chosen.Spec.Placement)
	out := Placed{Policy: policyID(chosen), Notes: []string{choiceNote(chosen, implicit, others, beaten), "candidates (" + why + "): " + orNone(names(cands))}}
	for _, c := range cands {
		out.Members = append(out.Members, c.Name)
	}
	return out, true
}
