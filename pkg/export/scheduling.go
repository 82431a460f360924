package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
)

// schedulingNotes are what a ReplicaSchedulingPreference says that
// Karmada's static weights cannot: the conversion divides today's plan
// exactly, but KubeFed keeps applying these rules when members, capacity or
// running replicas change, and Karmada will not.
//
//   - minReplicas and maxReplicas bound each member's share; Karmada's
//     staticWeightList has no bounds (approximated).
//   - rebalance moves running replicas; Karmada's Divided scheduling keeps
//     what runs only by its own rules (approximated).
//   - "*" weighs every other member; the weights become explicit per
//     member, so a member joined later gets nothing until converted again
//     (exact today: informs).
func schedulingNotes(rsp *federation.ReplicaSchedulingPreference, target *federation.Object) []Note {
	where := func(path string) string { return fmt.Sprintf("%s:%d", rsp.Pos.File(), rsp.Pos.Line(path)) }
	var notes []Note
	var bounded []string
	first := ""
	for _, name := range slices.Sorted(maps.Keys(rsp.Spec.Clusters)) {
		p := rsp.Spec.Clusters[name]
		if p.MinReplicas > 0 || p.MaxReplicas != nil {
			if first == "" {
				first = name
			}
			if name == "*" {
				name = `"*" (every other member)`
			}
			bounded = append(bounded, name)
		}
	}
	if len(bounded) > 0 {
		notes = append(notes, Note{Where: where("spec.clusters." + first), Object: rsp.ID(),
			Message: fmt.Sprintf("minReplicas/maxReplicas of %s have no Karmada equivalent: the static weights give today's split of %s, but Karmada divides by weight alone when members or replicas change", strings.Join(bounded, ", "), target.ID())})
	}
	if rsp.Spec.Rebalance {
		notes = append(notes, Note{Where: where("spec.rebalance"), Object: rsp.ID(),
			Message: "rebalance has no Karmada equivalent: Karmada keeps or moves running replicas by its own rules"})
	}
	if _, ok := rsp.Spec.Clusters["*"]; ok || len(rsp.Spec.Clusters) == 0 {
		notes = append(notes, Note{Where: where("spec.clusters.*"), Object: rsp.ID(), Exact: true,
			Message: "the \"*\" weight becomes an explicit weight per current member: a member joined later gets no replicas until the input is converted again"})
	}
	return notes
}
