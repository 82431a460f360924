package planner

import "time"

// UnschedulableThreshold is how long a pod must have been unschedulable
// before it caps its member's estimated capacity, as KubeFed's pod analyzer
// waits (pkg/controller/util/podanalyzer/pod_helper.go), so that replicas
// do not move on every scheduling hiccup.
const UnschedulableThreshold = 60 * time.Second

// Pod is what the pod analyzer reads of a pod.
type Pod struct {
	Phase      string
	Conditions []PodCondition
}

// PodCondition is one of a pod's status conditions.
type PodCondition struct {
	Type, Status, Reason string
	LastTransitionTime   time.Time
}

// PodCounts are KubeFed's pod analysis of one member's pods.
type PodCounts struct {
	// RunningAndReady counts Running pods with a Ready condition. The
	// condition's status is not looked at: KubeFed's quirk, kept.
	RunningAndReady int64
	// Unschedulable counts pods PodScheduled=False/Unschedulable for more
	// than UnschedulableThreshold; UnschedulableNow counts them all.
	Unschedulable, UnschedulableNow int64
}

// AnalyzePods counts pods as KubeFed's AnalyzePods does: for a Running pod
// each Ready condition counts (once per condition); for any other pod each
// PodScheduled condition that is False with reason Unschedulable counts
// as unschedulable now, and as unschedulable when its last transition is
// more than UnschedulableThreshold before now.
func AnalyzePods(pods []Pod, now time.Time) PodCounts {
	var c PodCounts
	for _, p := range pods {
		for _, cond := range p.Conditions {
			if p.Phase == "Running" {
				if cond.Type == "Ready" {
					c.RunningAndReady++
				}
			} else if cond.Type == "PodScheduled" && cond.Status == "False" && cond.Reason == "Unschedulable" {
				c.UnschedulableNow++
				if cond.LastTransitionTime.Add(UnschedulableThreshold).Before(now) {
					c.Unschedulable++
				}
			}
		}
	}
	return c
}

// MemberReplicas is what one member's object says for the plan: its
// current replicas and, when pods cannot be scheduled, its estimated
// capacity (KubeFed's clustersReplicaState,
// pkg/schedulingtypes/replicascheduler.go): ready replicas when they equal
// spec.replicas; otherwise the pods' running-and-ready count, and a
// capacity of spec.replicas minus the long-unschedulable pods when there
// are any. pods are read only when the two differ, so a caller lists them
// only then (KubeFed lists them only then too).
func MemberReplicas(specReplicas, readyReplicas int64, pods []Pod, now time.Time) (current, capacity int64, capped bool) {
	if specReplicas == readyReplicas {
		return readyReplicas, 0, false
	}
	c := AnalyzePods(pods, now)
	if c.Unschedulable > 0 {
		return c.RunningAndReady, specReplicas - c.Unschedulable, true
	}
	return c.RunningAndReady, 0, false
}
