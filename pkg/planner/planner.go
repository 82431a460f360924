package planner

import (
	"cmp"
	"math"
	"math/bits"
	"slices"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Wildcard is the spec.clusters key whose preferences apply to every
// cluster without a key of its own. Each such cluster gets its own copy of
// the minimum, maximum and weight; they are not shared.
const Wildcard = "*"

// Result is a replica plan.
type Result struct {
	// Plan has an entry for every cluster of the input list: its replicas,
	// 0 for clusters without a preference. Its sum may be below
	// totalReplicas (replicas that fit nowhere are left out).
	Plan map[string]int64
	// Overflow has, for clusters whose estimated capacity cut their share,
	// the replicas that would be nice to run there too if they happened to
	// fit. Only clusters with an estimated capacity appear, always with a
	// positive value; nil when there is none.
	Overflow map[string]int64
}

// Plan splits spec.TotalReplicas over clusters exactly as KubeFed's
// Planner.Plan does. key is the planned object's "<namespace>/<name>" (see
// Key); it only seeds the tie-break between clusters of equal weight.
// current holds the replicas running per cluster and capacity the estimated
// number a cluster can run; either may be nil, and entries for clusters not
// in the list are ignored. The steps, in KubeFed's order:
//
//  1. Each cluster takes spec.Clusters[name], else spec.Clusters["*"]. A
//     cluster with neither is planned 0 and takes no further part, not even
//     in leftovers; so an empty spec.Clusters plans 0 everywhere (Schedule,
//     like KubeFed's controller, defaults it first).
//  2. Clusters are ordered by weight, descending, then by the FNV-1 32-bit
//     hash (not FNV-1a) of the cluster name followed by key, ascending.
//     With an empty key one-letter names hash in reverse alphabetical
//     order. Equal weight and hash (a collision) falls back to the name,
//     ascending; KubeFed leaves that order to its input.
//  3. In that order each cluster gets min(minReplicas, replicas left),
//     further capped by its capacity. maxReplicas is not applied here, so
//     when the minimums exceed the total the first clusters get theirs in
//     full and the later ones what is left, or 0.
//  4. Without spec.Rebalance, each cluster running more than it got so far
//     keeps its running replicas up to its maximum and capacity, as far as
//     replicas are left, in the same order and regardless of weight. These
//     are remembered as preallocated.
//  5. Passes follow while replicas are left and the previous pass changed
//     something: some cluster grew or used preallocated replicas (a cut,
//     below, does not count). A pass sums the weights of the clusters not
//     yet full; a sum of 0 ends the planning, so weight-0 clusters never
//     get more than steps 3 and 4 gave them. Otherwise, with d the replicas
//     left at the start of the pass, each cluster in order is offered
//     ceil(d·weight/sum), at most the replicas still left: rounding up
//     favours the first clusters and the last ones absorb the shortfall.
//     Preallocated replicas count against the offer first. A total above
//     maxReplicas is set to the maximum; a total above the capacity is set
//     to the capacity and the excess recorded as that cluster's overflow
//     (replacing an earlier one). Either makes the cluster full: it leaves
//     the later passes. So a cluster whose minimum is above its maximum
//     keeps that minimum if no pass runs, and is otherwise cut down to the
//     maximum by the first pass, weight 0 or not, which puts replicas back
//     into play.
//  6. Replicas still left fit nowhere (every cluster full or weight 0) and
//     are simply not planned; this is not an error.
//  7. With spec.Rebalance the overflow is returned as computed; without it
//     each entry is trimmed to the replicas left unplanned, and entries that
//     become 0 are dropped.
//
// Plan validates before it plans: negative totalReplicas, minReplicas,
// maxReplicas or weight (any spec.Clusters entry, used or not), negative
// current values, and a cluster listed twice are errors, all reported
// together (fedctl's reader refuses negative preferences before, with their
// lines). A negative capacity (KubeFed computes one when more pods are long
// unschedulable than spec.replicas) is planned with as KubeFed does: its
// cluster's share goes to overflow, which Schedule adds back; where that
// leaves a negative count, the member refuses it, as under KubeFed.
// minReplicas above maxReplicas is accepted, as in
// KubeFed (step 5 says what happens). Arithmetic that would overflow int64
// in KubeFed's planner (weights summing past MaxInt64, or d·weight past it)
// is an error too, raised exactly where KubeFed would silently wrap around.
//
// Inputs are not modified. The result does not depend on the order of
// clusters or of any map.
func Plan(spec federation.RSPSpec, clusters []string, key string, current, capacity map[string]int64) (Result, error) {
	return plan(spec, clusters, key, current, capacity, nil)
}

// smallPlan is the number of clusters planned without allocating working
// memory on the heap.
const smallPlan = 16

// entry is a cluster with a preference while it is being planned.
type entry struct {
	name        string
	hash        uint32
	hasMax      bool
	hasCap      bool
	hasOverflow bool

	weight, min, max, capacity int64

	planned  int64 // replicas so far
	prealloc int64 // preallocated replicas not yet counted against a share
	overflow int64 // excess over capacity, valid if hasOverflow
}

// byOrder is step 2's order: weight descending, hash ascending, then name.
func byOrder(a, b entry) int {
	if c := cmp.Compare(b.weight, a.weight); c != 0 {
		return c
	}
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	return cmp.Compare(a.name, b.name)
}

// plan is Plan with an optional recorder that sees every step.
func plan(spec federation.RSPSpec, clusters []string, key string, current, capacity map[string]int64, rec recorder) (Result, error) {
	if err := validate(spec, current, capacity); err != nil {
		return Result{}, err
	}

	var entBuf [smallPlan]entry
	var actBuf [smallPlan]int
	ents, active := entBuf[:0], actBuf[:0]
	if len(clusters) > smallPlan {
		ents = make([]entry, 0, len(clusters))
		active = make([]int, 0, len(clusters))
	}
	out := make(map[string]int64, len(clusters))

	// Step 1: preferences.
	star, hasStar := spec.Clusters[Wildcard]
	dup := false
	for _, name := range clusters {
		pref, ok := spec.Clusters[name]
		if !ok {
			if !hasStar {
				if _, seen := out[name]; seen {
					dup = true
				}
				out[name] = 0
				continue
			}
			pref = star
		}
		e := entry{name: name, hash: fnv1(name, key), weight: pref.Weight, min: pref.MinReplicas}
		if pref.MaxReplicas != nil {
			e.max, e.hasMax = *pref.MaxReplicas, true
		}
		if c, ok := capacity[name]; ok {
			e.capacity, e.hasCap = c, true
		}
		ents = append(ents, e)
	}

	// Step 2: order.
	slices.SortFunc(ents, byOrder)
	for i := 1; i < len(ents); i++ {
		if ents[i].name == ents[i-1].name {
			dup = true
		}
	}
	if dup {
		return Result{}, duplicateError(clusters)
	}
	if rec != nil {
		recordUnmatched(rec, out)
		for i := range ents {
			e := &ents[i]
			rec.record(step{kind: stepOrdered, cluster: e.name, weight: e.weight, hash: e.hash})
		}
	}

	// Step 3: minimums.
	remaining := int64(spec.TotalReplicas)
	for i := range ents {
		e := &ents[i]
		m := min(e.min, remaining)
		if e.hasCap {
			m = min(m, e.capacity)
		}
		remaining -= m
		e.planned = m
		if rec != nil {
			rec.record(step{kind: stepMinimum, cluster: e.name, replicas: m, total: m, remaining: remaining})
		}
	}

	// Step 4: keep running replicas in place.
	if !spec.Rebalance {
		for i := range ents {
			e := &ents[i]
			running, ok := current[e.name]
			if !ok || running <= e.planned {
				continue
			}
			target := running
			if e.hasMax {
				target = min(target, e.max)
			}
			if e.hasCap {
				target = min(target, e.capacity)
			}
			extra := max(min(target-e.planned, remaining), 0)
			remaining -= extra
			e.prealloc = extra
			e.planned += extra
			if rec != nil {
				rec.record(step{kind: stepPreallocated, cluster: e.name, replicas: extra, total: e.planned, remaining: remaining})
			}
		}
	}

	// Step 5: weighted passes.
	for i := range ents {
		active = append(active, i)
	}
	modified := true
	for pass := 1; modified && remaining > 0; pass++ {
		modified = false
		var weightSum int64
		for _, i := range active {
			w := ents[i].weight
			if weightSum > math.MaxInt64-w {
				return Result{}, weightSumError(ents, active)
			}
			weightSum += w
		}
		distribute := remaining
		if rec != nil {
			rec.record(step{kind: stepPass, pass: pass, weightSum: weightSum, distribute: distribute, remaining: remaining})
		}
		if weightSum == 0 {
			break // nothing can be offered to anyone, now or later
		}
		kept := active[:0]
		for _, i := range active {
			e := &ents[i]
			start := e.planned
			share, ok := ceilShare(distribute, e.weight, weightSum)
			if !ok {
				return Result{}, shareError(e.name, e.weight, distribute, weightSum)
			}
			offered := min(share, remaining)
			used := min(offered, e.prealloc)
			e.prealloc -= used
			if used > 0 {
				modified = true
			}
			total := start + offered - used
			cappedByMax, cappedByCapacity := false, false
			if e.hasMax && total > e.max {
				total, cappedByMax = e.max, true
			}
			if e.hasCap && total > e.capacity {
				e.overflow, e.hasOverflow = total-e.capacity, true
				total, cappedByCapacity = e.capacity, true
			}
			full := cappedByMax || cappedByCapacity
			if !full {
				kept = append(kept, i)
			}
			remaining -= total - start
			e.planned = total
			if total > start {
				modified = true
			}
			if rec != nil {
				s := step{kind: stepShare, cluster: e.name, pass: pass, weight: e.weight,
					weightSum: weightSum, distribute: distribute, share: share, offered: offered, usedPrealloc: used,
					replicas: total - start, total: total, remaining: remaining,
					cappedByMax: cappedByMax, cappedByCapacity: cappedByCapacity, full: full}
				if cappedByCapacity {
					s.overflow = e.overflow
				}
				rec.record(s)
			}
		}
		active = kept
	}

	// Steps 6 and 7: the plan and the overflow.
	var overflow map[string]int64
	for i := range ents {
		e := &ents[i]
		out[e.name] = e.planned
		if !e.hasOverflow {
			continue
		}
		v := e.overflow
		if !spec.Rebalance {
			v = min(v, remaining)
		}
		if v > 0 {
			if overflow == nil {
				overflow = make(map[string]int64)
			}
			overflow[e.name] = v
		}
		if rec != nil {
			rec.record(step{kind: stepOverflow, cluster: e.name, overflow: v, remaining: remaining})
		}
	}
	if rec != nil {
		rec.record(step{kind: stepDone, remaining: remaining})
	}
	return Result{Plan: out, Overflow: overflow}, nil
}

// ceilShare is KubeFed's (d·w + sum − 1) / sum, the share of d replicas for
// weight w out of sum, rounded up. ok is false where KubeFed's int64
// expression would overflow; d, w ≥ 0 and sum > 0.
func ceilShare(d, w, sum int64) (share int64, ok bool) {
	hi, lo := bits.Mul64(uint64(d), uint64(w))
	if hi != 0 || lo > uint64(math.MaxInt64)-uint64(sum-1) {
		return 0, false
	}
	return int64(lo+uint64(sum-1)) / sum, true
}
