// Package liveplan reads what KubeFed's scheduling controller reads from
// the members before it plans replicas: which members are ready, and, for
// each ReplicaSchedulingPreference's target, every ready member's current
// replicas and estimated capacity (pkg/schedulingtypes/replicascheduler.go,
// clustersReplicaState). It returns render.Live, from which render plans as
// the controller would; the counting itself is planner's, pure.
package liveplan
