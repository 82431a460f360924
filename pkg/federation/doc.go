// Package federation defines the federated object model fedctl reads (the
// KubeFed Federated<Kind>, FederatedNamespace and ReplicaSchedulingPreference
// types) and the labels and annotations fedctl puts on member objects.
//
// It is pure data: no I/O and no clients.
package federation
