// Package placement decides which member clusters a federated object goes
// to, with KubeFed's rules (pkg/controller/util/placement.go at v0.10.0):
// spec.placement.clusters, when present, decides alone, even when empty;
// otherwise spec.placement.clusterSelector matches the members' labels, where
// a missing selector selects nothing and an empty one selects every member.
// The result is always limited to the members: listed names that are not
// members are dropped and reported so that the caller can warn.
//
// The package is pure: members and placements come in, cluster names come
// out. It does not know about readiness, FederatedNamespaces or
// ReplicaSchedulingPreferences; the caller combines selections (Intersect)
// and decides what a missing FederatedNamespace means.
package placement
