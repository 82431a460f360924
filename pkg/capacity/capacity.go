// Package capacity does the arithmetic of a drain: what the replicas that
// move need (their pods' requests) against what the destination members
// have free (their nodes' allocatable minus the requests of the pods
// already there), per member and resource. It takes data and returns data.
package capacity

import (
	"fmt"
	"slices"

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
	Allocatable   map[string]any
	Unschedulable bool
}

// Free is what a member's nodes have left: the allocatable of the nodes
// that take pods minus the requests of the pods (not finished) already
// there.
func Free(nodes []Node, podSpecs []map[string]any) Amounts {
	out := Amounts{}
	for _, n := range nodes {
		if n.Unschedulable {
			continue
		}
		for _, r := range Resources {
			if v, ok := n.Allocatable[r]; ok {
				out[r] += milli(v)
			}
		}
	}
	for _, p := range podSpecs {
		out.add(PodRequests(p), -1)
	}
	return out
}

// Move is replicas of one workload going to one member.
type Move struct {
	Member   string
	Workload string
	Replicas int64
	// PerReplica are one replica's requests.
	PerReplica Amounts
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
