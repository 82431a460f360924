package planner

import "github.com/fedctl/fedctl/pkg/federation"

// StepKind names the rule of Plan's doc comment that a Step applies.
type StepKind string

// The kinds of Step, in the order Plan takes them.
const (
	// StepUnmatched: Cluster has no preference of its own and there is no
	// "*", so it is planned 0 and takes no further part (rule 1). Recorded
	// in name order, before everything else.
	StepUnmatched StepKind = "unmatched"
	// StepOrdered: Cluster takes part, at this position (rule 2), with
	// Weight and Hash; Preference is the spec.clusters key it took its
	// preferences from (its name or "*"), with MinReplicas and MaxReplicas.
	StepOrdered StepKind = "ordered"
	// StepMinimum: Cluster got Replicas as its minimum (rule 3); Total is
	// its plan so far and Remaining what is left after.
	StepMinimum StepKind = "minimum"
	// StepPreallocated: Cluster keeps Replicas of those running there
	// (rule 4); Total is its plan so far and Remaining what is left after.
	StepPreallocated StepKind = "preallocated"
	// StepPass: weighted pass number Pass starts (rule 5) with WeightSum
	// and Distribute replicas; a WeightSum of 0 ends the planning.
	StepPass StepKind = "pass"
	// StepShare: Cluster's turn in pass Pass (rule 5): Share is
	// ceil(Distribute·Weight/WeightSum), Offered min(Share, replicas left),
	// UsedPrealloc how much of the offer was already running there;
	// Replicas is the change (negative when a minimum above the maximum is
	// cut), Total the new plan, Remaining what is left after. CappedByMax
	// and CappedByCapacity (with Overflow) say why the cluster is Full,
	// which takes it out of later passes.
	StepShare StepKind = "share"
	// StepOverflow: Cluster's Overflow after trimming (rule 7); 0 means it
	// is dropped.
	StepOverflow StepKind = "overflow"
	// StepDone: the Remaining replicas fit nowhere (rule 6).
	StepDone StepKind = "done"
)

// Step is one step of a plan as Plan took it. Which fields are meaningful
// depends on Kind (see the StepKind constants); the others are zero.
type Step struct {
	Kind    StepKind
	Cluster string

	Preference  string
	MinReplicas int64
	MaxReplicas *int64
	Weight      int64
	Hash        uint32

	Pass                                                int
	WeightSum, Distribute, Share, Offered, UsedPrealloc int64

	Replicas, Total, Overflow, Remaining int64

	CappedByMax, CappedByCapacity, Full bool
}

// Trace is a replica plan with every step that produced it, for an
// explanation of the plan (fedctl explain).
type Trace struct {
	// Spec is the preference as planned: with Schedule's default for an
	// empty spec.clusters when Defaulted.
	Spec federation.RSPSpec
	// Defaulted says that spec.clusters was empty and planned as
	// {"*": {weight: 1}}, as KubeFed's RSP controller does.
	Defaulted bool
	// Result is Plan's result.
	Result Result
	// Scheduled is Schedule's result: what becomes placement and
	// /spec/replicas overrides.
	Scheduled map[string]int64
	// Steps are Plan's steps, in the order it took them.
	Steps []Step
}

// ScheduleTrace is Schedule, returning the steps Plan took on the way. It
// runs the one planning algorithm with a recorder attached, so that the
// steps and the result cannot disagree; Scheduled equals what Schedule
// returns for the same arguments. Errors are Schedule's. Inputs are not
// modified.
func ScheduleTrace(spec federation.RSPSpec, clusters []string, key string, current, capacity map[string]int64) (Trace, error) {
	tr := Trace{}
	if len(spec.Clusters) == 0 {
		spec.Clusters = defaultClusters // spec is a copy
		tr.Defaulted = true
	}
	tr.Spec = spec
	rec := &stepList{spec: spec}
	res, err := plan(spec, clusters, key, current, capacity, rec)
	if err != nil {
		return Trace{}, err
	}
	tr.Result = Result{Plan: make(map[string]int64, len(res.Plan)), Overflow: res.Overflow}
	for k, v := range res.Plan {
		tr.Result.Plan[k] = v
	}
	tr.Scheduled = scheduled(res, current)
	tr.Steps = rec.steps
	return tr, nil
}

// stepList records steps as Steps.
type stepList struct {
	spec  federation.RSPSpec
	steps []Step
}

func (l *stepList) record(s step) {
	out := Step{
		Kind: stepKinds[s.kind], Cluster: s.cluster, Weight: s.weight, Hash: s.hash, Pass: s.pass,
		WeightSum: s.weightSum, Distribute: s.distribute, Share: s.share, Offered: s.offered, UsedPrealloc: s.usedPrealloc,
		Replicas: s.replicas, Total: s.total, Overflow: s.overflow, Remaining: s.remaining,
		CappedByMax: s.cappedByMax, CappedByCapacity: s.cappedByCapacity, Full: s.full,
	}
	if s.kind == stepOrdered {
		// Rule 1's lookup, which Plan just made for this cluster.
		key := s.cluster
		pref, ok := l.spec.Clusters[key]
		if !ok {
			key, pref = Wildcard, l.spec.Clusters[Wildcard]
		}
		out.Preference, out.MinReplicas = key, pref.MinReplicas
		if pref.MaxReplicas != nil {
			m := *pref.MaxReplicas
			out.MaxReplicas = &m
		}
	}
	l.steps = append(l.steps, out)
}

var stepKinds = map[stepKind]StepKind{
	stepUnmatched:    StepUnmatched,
	stepOrdered:      StepOrdered,
	stepMinimum:      StepMinimum,
	stepPreallocated: StepPreallocated,
	stepPass:         StepPass,
	stepShare:        StepShare,
	stepOverflow:     StepOverflow,
	stepDone:         StepDone,
}
