// Package kubefed is fedctl's first input dialect: KubeFed's federated
// objects. It reads Federated<Kind> and FederatedNamespace objects in
// types.kubefed.io (or the older types.kubefed.k8s.io) and
// ReplicaSchedulingPreferences in scheduling.kubefed.io (or
// scheduling.kubefed.k8s.io), strictly, into federation.Set, with KubeFed's
// defaulting and validation (KubeFed's pkg/apis/types and
// pkg/apis/scheduling). KubeFed's control-plane objects (core.kubefed.io:
// FederatedTypeConfig, KubeFedCluster, ...) are read only to be ignored
// with a warning: without a control plane they mean nothing.
//
// It is pure: no I/O and no clients.
package kubefed
