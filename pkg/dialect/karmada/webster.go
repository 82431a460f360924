package karmada

import (
	"container/heap"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// party is one member in a division: its weight and the seats (replicas)
// it holds so far.
type party struct {
	name   string
	weight int64
	seats  int32
}

// seat records one step of a division, for explain: which member got the
// replica, with the priority weight/(2·seats+1) it won with.
type seat struct {
	Member string
	// Weight and Divisor (2·seats+1, seats before this one) give Priority.
	Weight   int64
	Divisor  int32
	Priority float64
	// Tie is how the step was decided when another member had the same
	// priority: "fewer replicas" or "name".
	Tie string
}

// division is the result of dividing replicas by static weights.
type division struct {
	Replicas map[string]int32
	Seats    []seat
	// Descending says that equal members went to the larger name first
	// (FNV-1a-32 of the tie-break key is odd).
	Descending bool
}

// websterQueue orders parties by Karmada's rule (pkg/util/helper/
// webstermethod.go, WebsterPriorityQueue.Less): the higher float64
// weight/(2·seats+1) first; on equal priority the party with fewer seats,
// then the name in the order the tie-break key chose. Priorities are
// compared as float64, as upstream does, so that even weights whose
// quotients round together divide as Karmada divides them.
type websterQueue struct {
	parties    []party
	descending bool
}

func priority(p party) float64 { return float64(p.weight) / float64(2*p.seats+1) }

func (q *websterQueue) Len() int { return len(q.parties) }
func (q *websterQueue) Less(i, j int) bool {
	a, b := q.parties[i], q.parties[j]
	if pa, pb := priority(a), priority(b); pa != pb {
		return pa > pb
	}
	if a.seats != b.seats {
		return a.seats < b.seats
	}
	if q.descending {
		return a.name > b.name
	}
	return a.name < b.name
}
func (q *websterQueue) Swap(i, j int) { q.parties[i], q.parties[j] = q.parties[j], q.parties[i] }
func (q *websterQueue) Push(x any)    { q.parties = append(q.parties, x.(party)) }
func (q *websterQueue) Pop() any {
	p := q.parties[len(q.parties)-1]
	q.parties = q.parties[:len(q.parties)-1]
	return p
}

// nameDescending is Karmada's tie-break (pkg/util/helper/binding.go,
// tieBreakerByUID): equal members are taken in descending name order when
// the FNV-1a 32-bit hash of the key is odd, ascending otherwise and when
// the key is empty.
func nameDescending(key string) bool {
	if key == "" {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return h.Sum32()&1 == 1
}

// webster divides total replicas among the weighted members one seat at a
// time by the Webster / Sainte-Laguë method, as Karmada v1.16+ does for
// static weights (pkg/util/helper/binding.go, Dispenser.AllocateByWeight;
// webstermethod.go, AllocateWebsterSeats). Members with weight 0 take no
// part. The result is house-monotone: total+1 gives every member at least
// what total gave it.
func webster(total int32, weights map[string]int64, key string) division {
	q := &websterQueue{descending: nameDescending(key)}
	for _, name := range sortedNames(weights) {
		if weights[name] > 0 {
			q.parties = append(q.parties, party{name: name, weight: weights[name]})
		}
	}
	d := division{Replicas: map[string]int32{}, Descending: q.descending}
	if len(q.parties) == 0 {
		return d
	}
	heap.Init(q)
	for range total {
		next := heap.Pop(q).(party)
		s := seat{Member: next.name, Weight: next.weight, Divisor: 2*next.seats + 1, Priority: priority(next)}
		for _, other := range q.parties {
			if priority(other) == s.Priority {
				if other.seats != next.seats {
					s.Tie = "fewer replicas"
				} else if s.Tie == "" {
					s.Tie = "name"
				}
			}
		}
		d.Seats = append(d.Seats, s)
		next.seats++
		heap.Push(q, next)
	}
	for _, p := range q.parties {
		if p.seats > 0 {
			d.Replicas[p.name] = p.seats
		}
	}
	return d
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// String writes the seats for explain, in order, each with its weight,
// divisor and priority: "c3 3/1=3, c2 2/1=2, c1 1/1=1 (tie broken by …)".
func (d division) String() string {
	var b strings.Builder
	for i, s := range d.Seats {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%d/%d=%.3g", s.Member, s.Weight, s.Divisor, s.Priority)
		if s.Tie != "" {
			b.WriteString(", tie broken by " + s.Tie)
		}
		b.WriteString(")")
	}
	return b.String()
}
