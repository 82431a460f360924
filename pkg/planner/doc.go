// Package planner splits the replicas of a ReplicaSchedulingPreference over
// member clusters exactly as KubeFed does: Plan reproduces KubeFed's
// Planner.Plan (pkg/controller/util/planner/planner.go) rule for rule,
// quirks included, and Schedule reproduces what KubeFed's RSP controller
// writes back (the default preference, plan plus overflow, and 0 for members
// that already hold the workload).
//
// Users migrating from KubeFed must get the same numbers, so nothing here is
// "improved": minimums that cannot all be met go to the first clusters in
// order, running replicas stay put without rebalance even when that ignores
// the weights, and replicas that fit nowhere are left out. The only
// departures are where KubeFed's own result is undefined: an FNV-1 hash
// collision between two clusters of equal weight (KubeFed's order then
// depends on the informer's cluster order; fedctl breaks the tie by name),
// and arithmetic that would overflow int64 (KubeFed wraps around and plans
// garbage; fedctl returns an error).
//
// It performs no I/O and keeps no state; inputs are never modified, and the
// result depends neither on the order of the cluster list nor on map
// iteration order. Where the numbers come from (member status, pod
// analysis) is the caller's business.
package planner
