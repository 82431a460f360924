package planner

import (
	"maps"
	"slices"
)

// A recorder sees every step of a plan as Plan takes it, so that a step by
// step explanation (fedctl explain) can be built from the one algorithm
// instead of a copy of it. Plan passes none; steps are only assembled when
// a recorder is present, so planning pays nothing for them.
type recorder interface {
	record(step)
}

// stepKind says which rule of Plan's doc comment a step applies.
type stepKind uint8

const (
	// stepUnmatched: cluster has no preference and is planned 0 (rule 1).
	// Recorded in name order.
	stepUnmatched stepKind = iota + 1
	// stepOrdered: cluster takes part, at this position (rule 2): weight,
	// hash.
	stepOrdered
	// stepMinimum: cluster got replicas as its minimum (rule 3); remaining
	// after.
	stepMinimum
	// stepPreallocated: cluster keeps replicas of the running ones
	// (rule 4); total is its plan so far, remaining after.
	stepPreallocated
	// stepPass: a weighted pass starts (rule 5): pass, weightSum,
	// distribute. A weightSum of 0 ends the planning.
	stepPass
	// stepShare: cluster's turn in a pass (rule 5): share =
	// ceil(distribute·weight/weightSum), offered = min(share, replicas left),
	// usedPrealloc of the offer were already running; replicas is the
	// change (negative when a minimum above the maximum is cut), total the
	// new plan, cappedByMax / cappedByCapacity (with overflow) say why it is
	// full.
	stepShare
	// stepOverflow: cluster's overflow after trimming (rule 7); 0 means it
	// is dropped.
	stepOverflow
	// stepDone: remaining replicas fit nowhere (rule 6).
	stepDone
)

// step is one recorded step; which fields are set depends on kind.
type step struct {
	kind    stepKind
	cluster string
	weight  int64
	hash    uint32
	pass    int

	weightSum, distribute, share, offered, usedPrealloc int64

	replicas, total, overflow, remaining int64

	cappedByMax, cappedByCapacity, full bool
}

// recordUnmatched records the clusters planned 0 for want of a preference,
// sorted by name so the trace does not depend on the order of the cluster
// list. At this point zeros holds only those clusters.
func recordUnmatched(rec recorder, zeros map[string]int64) {
	for _, name := range slices.Sorted(maps.Keys(zeros)) {
		rec.record(step{kind: stepUnmatched, cluster: name})
	}
}
