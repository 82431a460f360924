// Package capacity does the arithmetic of a drain: what the replicas that
// move need (their pods' requests) against what the destination members
// have free (their nodes' allocatable minus the requests of the pods
// already there), per member and resource. It takes data and returns data.
package capacity

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Resources are the resources a drain checks.
var Resources = []string{"cpu", "memory"}

// Amounts are quantities by resource, in milli-units (cpu in millicores,
// memory in thousandths of a byte) so that both add up exactly.
type Amounts map[string]int64

func (a Amounts) add(b Amounts, times int64) {
	for k, v := range b {
		a[k] += v * times
	}
}

// PodRequests are a pod template's requests: the sum of its containers',
// or an init container's when larger (Kubernetes' effective request), a
// limit standing in for a missing request (the API server's default).
func PodRequests(podSpec map[string]any) Amounts {
	out := Amounts{}
	for _, c := range list(podSpec["containers"]) {
		for _, r := range Resources {
			out[r] += request(c, r)
		}
	}
	for _, c := range list(podSpec["initContainers"]) {
		for _, r := range Resources {
			out[r] = max(out[r], request(c, r))
		}
	}
	return out
}

func list(v any) []map[string]any {
	items, _ := v.([]any)
	out := make([]map[string]any, 0, len(items))
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func request(container map[string]any, name string) int64 {
	res, _ := container["resources"].(map[string]any)
	for _, key := range []string{"requests", "limits"} {
		q, _ := res[key].(map[string]any)
		if v, ok := q[name]; ok {
			return milli(v)
		}
	}
	return 0
}

// milli parses a quantity as milli-units; 0 when it does not parse.
func milli(v any) int64 {
	s := fmt.Sprint(v)
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0
	}
	return q.MilliValue()
}

// Node is what Free reads of a node.
type Node struct {
	Name          string
	Allocatable   map[string]any
	Unschedulable bool
}

// Free is what a member's nodes have left: the allocatable of the nodes
// that take pods minus the requests of the pods (not finished) on them.
// The pods of a node that takes no new pods (cordoned) are not
// subtracted, as its allocatable is not counted: they would otherwise be
// taken from the other nodes' room.
func Free(nodes []Node, podSpecs []map[string]any) Amounts {
	out := Amounts{}
	closed := map[string]bool{}
	for _, n := range nodes {
		if n.Unschedulable {
			closed[n.Name] = true
			continue
		}
		for _, r := range Resources {
			if v, ok := n.Allocatable[r]; ok {
				out[r] += milli(v)
			}
		}
	}
	for _, p := range podSpecs {
		if node, _ := p["nodeName"].(string); node != "" && closed[node] {
			continue
		}
		out.add(PodRequests(p), -1)
	}
	return out
}

// Move is replicas of one workload going to one member.
type Move struct {
	Member   string
	Workload string
	// Replicas are the replicas the member gains; Degrade may make it
	// negative (the member then keeps fewer than it had).
	Replicas int64
	// PerReplica are one replica's requests.
	PerReplica Amounts
	// Before are the replicas the member had, Min the fewest it may be
	// scaled to (the RSP's minReplicas for it), and Priority the
	// workload's fedctl.io/priority: what Degrade needs.
	Before, Min, Priority int64
}

// Row is one line of the capacity table: a member and a resource.
type Row struct {
	Member, Resource string
	Needed, Free     int64
}

// OK says whether the free amount covers what is needed.
func (r Row) OK() bool { return r.Needed <= r.Free }

// Check adds up what the moves need per member and resource and sets it
// against free (by member), in member then resource order. Members no
// replica moves to are left out.
func Check(moves []Move, free map[string]Amounts) []Row {
	needed := map[string]Amounts{}
	for _, m := range moves {
		if needed[m.Member] == nil {
			needed[m.Member] = Amounts{}
		}
		needed[m.Member].add(m.PerReplica, m.Replicas)
	}
	var rows []Row
	for _, member := range sortedKeys(needed) {
		for _, r := range Resources {
			rows = append(rows, Row{Member: member, Resource: r, Needed: needed[member][r], Free: free[member][r]})
		}
	}
	return rows
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Format writes an amount of resource for people: millicores as "1500m"
// or "2", memory in Mi.
func Format(resourceName string, v int64) string {
	switch resourceName {
	case "cpu":
		if v%1000 == 0 {
			return fmt.Sprintf("%d", v/1000)
		}
		return fmt.Sprintf("%dm", v)
	case "memory":
		return fmt.Sprintf("%dMi", v/1000/(1<<20))
	}
	return fmt.Sprint(v)
}

// Cut is one workload that Degrade scaled down on one member: Planned
// replicas by the plan, Kept after the cut.
type Cut struct {
	Member, Workload string
	Planned, Kept    int64
	Min, Priority    int64
}

// Degrade scales the moves down until they fit in free, member by member:
// the workload of lowest priority is cut first (the highest keeps its
// replicas longest; equal priorities in workload order), each by as few
// replicas as cover what its member is short of, never below its Min.
// It returns the moves as cut and the cuts; what still does not fit at
// the minimums shows in Check of the result. moves is not modified.
func Degrade(moves []Move, free map[string]Amounts) ([]Move, []Cut) {
	out := slices.Clone(moves)
	needed := map[string]Amounts{}
	for _, m := range out {
		if needed[m.Member] == nil {
			needed[m.Member] = Amounts{}
		}
		needed[m.Member].add(m.PerReplica, m.Replicas)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(out[a].Priority, out[b].Priority); c != 0 {
			return c
		}
		return strings.Compare(out[a].Workload, out[b].Workload)
	})
	var cuts []Cut
	for _, i := range order {
		m := &out[i]
		short := Amounts{}
		for _, r := range Resources {
			if d := needed[m.Member][r] - free[m.Member][r]; d > 0 {
				short[r] = d
			}
		}
		k := int64(0)
		for r, d := range short {
			if per := m.PerReplica[r]; per > 0 {
				k = max(k, (d+per-1)/per)
			}
		}
		k = min(k, m.Before+m.Replicas-m.Min)
		if k <= 0 {
			continue
		}
		cuts = append(cuts, Cut{Member: m.Member, Workload: m.Workload, Planned: m.Before + m.Replicas, Kept: m.Before + m.Replicas - k, Min: m.Min, Priority: m.Priority})
		m.Replicas -= k
		needed[m.Member].add(m.PerReplica, -k)
	}
	slices.SortFunc(cuts, func(a, b Cut) int {
		return cmp.Or(strings.Compare(a.Member, b.Member), strings.Compare(a.Workload, b.Workload))
	})
	return out, cuts
}
