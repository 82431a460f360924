package placement

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/labels"
)

// Migration moves the federated objects whose labels Selector matches from
// the member that holds it to the member To (fedctl migrate).
type Migration struct {
	Selector labels.Selector
	To       string
}

// Moved is one migration that applied to an object, for explain.
type Moved struct {
	From, To, Selector string
}

// Migrated applies the members' migrations to the clusters an object with
// objLabels is placed in: a member a migration moves the object off is
// replaced by the migration's destination, followed to the end of a chain
// (a to b, then b to c ends in c, whatever the order of the members; see
// destination). The result is sorted without duplicates; clusters is not
// modified.
func Migrated(clusters []string, objLabels map[string]string, members []Cluster) ([]string, []Moved) {
	if !HasMigrations(members) { // the usual federation: nothing to follow, nothing allocated
		return clusters, nil
	}
	var out []string
	var moved []Moved
	for _, c := range clusters {
		to, hops := destination(c, objLabels, members)
		moved = appendNewMoves(moved, hops)
		out = append(out, to)
	}
	if moved == nil {
		return clusters, nil
	}
	slices.Sort(out)
	return slices.Compact(out), moved
}

// MigratedPlan applies the members' migrations to a replica plan of an
// object with objLabels: a member a migration moves the object off gives
// its replicas to the destination at the end of the chain, which adds
// them to its own. Each member's destination is decided from plan as
// given, so that two members that swap (a cycle) swap their shares. It
// returns plan itself when no migration applies, else a new plan.
func MigratedPlan(plan map[string]int64, objLabels map[string]string, members []Cluster) (map[string]int64, []Moved) {
	if !HasMigrations(members) {
		return plan, nil
	}
	out := make(map[string]int64, len(plan))
	var moved []Moved
	for _, c := range slices.Sorted(maps.Keys(plan)) {
		to, hops := destination(c, objLabels, members)
		moved = appendNewMoves(moved, hops)
		out[to] += plan[c]
	}
	if moved == nil {
		return plan, nil
	}
	return out, moved
}

// Stranded are the members of clusters that migrations send an object with
// objLabels off to a member not in available (cordoned, or not answering):
// each with that destination. A replica plan gives such a member no share,
// so that its share is planned over the members that can take it.
func Stranded(clusters []string, objLabels map[string]string, members []Cluster, available []string) map[string]string {
	if !HasMigrations(members) {
		return nil
	}
	var out map[string]string
	for _, c := range clusters {
		to, hops := destination(c, objLabels, members)
		if len(hops) == 0 || slices.Contains(available, to) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[c] = to
	}
	return out
}

// destination is where the migrations send an object with objLabels that
// is placed in from: each member's first migration whose selector matches
// is followed, until a member without one; a migration back to a member
// already passed ends the chain before it (a cycle). hops are the
// migrations followed; none when from keeps the object.
func destination(from string, objLabels map[string]string, members []Cluster) (string, []Moved) {
	cur, seen := from, []string{from}
	var hops []Moved
	for {
		i := slices.IndexFunc(members, func(m Cluster) bool { return m.Name == cur })
		if i < 0 {
			return cur, hops
		}
		j := slices.IndexFunc(members[i].Migrations, func(mg Migration) bool { return mg.Selector.Matches(labels.Set(objLabels)) })
		if j < 0 {
			return cur, hops
		}
		mg := members[i].Migrations[j]
		if slices.Contains(seen, mg.To) {
			return cur, hops
		}
		hops = append(hops, Moved{From: cur, To: mg.To, Selector: mg.Selector.String()})
		cur, seen = mg.To, append(seen, mg.To)
	}
}

// appendNewMoves appends the moves moved does not hold yet.
func appendNewMoves(moved, hops []Moved) []Moved {
	for _, h := range hops {
		if !slices.Contains(moved, h) {
			moved = append(moved, h)
		}
	}
	return moved
}

// NamespaceDestinations are the members that migrations send objects of
// one namespace to, from members the namespace is placed in (clusters),
// given the labels of the objects in it. The Namespace goes there too, so
// that what moves has somewhere to live; it also stays where it is, since
// removing a Namespace removes everything in it.
func NamespaceDestinations(clusters []string, objLabels []map[string]string, members []Cluster) []string {
	var out []string
	in := slices.Clone(clusters)
	// Repeat until nothing is added, for chains (a to b, then b to c).
	for added := true; added; {
		added = false
		for _, m := range members {
			if !slices.Contains(in, m.Name) {
				continue
			}
			for _, mg := range m.Migrations {
				if slices.Contains(in, mg.To) {
					continue
				}
				for _, l := range objLabels {
					if mg.Selector.Matches(labels.Set(l)) {
						out, in, added = append(out, mg.To), append(in, mg.To), true
						break
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// HasMigrations says whether any member has a migration.
func HasMigrations(members []Cluster) bool {
	return slices.ContainsFunc(members, func(m Cluster) bool { return len(m.Migrations) > 0 })
}

// Union is the names in a or b, sorted, without duplicates.
func Union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}
