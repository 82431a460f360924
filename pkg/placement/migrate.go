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
// replaced by the migration's destination. Members are taken in order, and
// each member's migrations in order, so a chain (a to b, then b to c) ends
// in c. The result is sorted without duplicates; clusters is not modified.
func Migrated(clusters []string, objLabels map[string]string, members []Cluster) ([]string, []Moved) {
	out := clusters
	var moved []Moved
	for _, m := range members {
		for _, mg := range m.Migrations {
			if !slices.Contains(out, m.Name) || !mg.Selector.Matches(labels.Set(objLabels)) {
				continue
			}
			if moved == nil {
				out = slices.Clone(out)
			}
			moved = append(moved, Moved{From: m.Name, To: mg.To, Selector: mg.Selector.String()})
			out = slices.DeleteFunc(out, func(c string) bool { return c == m.Name })
			if !slices.Contains(out, mg.To) {
				out = append(out, mg.To)
			}
		}
	}
	if moved != nil {
		slices.Sort(out)
	}
	return out, moved
}

// MigratedPlan applies the members' migrations to a replica plan of an
// object with objLabels: a member a migration moves the object off gives
// its replicas to the destination, which adds them to its own. It returns
// plan itself when no migration applies, else a new plan.
func MigratedPlan(plan map[string]int64, objLabels map[string]string, members []Cluster) (map[string]int64, []Moved) {
	out := plan
	var moved []Moved
	for _, m := range members {
		for _, mg := range m.Migrations {
			n, ok := out[m.Name]
			if !ok || !mg.Selector.Matches(labels.Set(objLabels)) {
				continue
			}
			if moved == nil {
				out = maps.Clone(plan)
			}
			moved = append(moved, Moved{From: m.Name, To: mg.To, Selector: mg.Selector.String()})
			delete(out, m.Name)
			out[mg.To] += n
		}
	}
	return out, moved
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
