// Package federation is fedctl's federated-object model, the centre of the
// pipeline: every input dialect (pkg/dialect/...) compiles into a Set of
// Objects — a template, a placement, per-member overrides — and
// ReplicaSchedulingPreferences, and every stage after that reads only these
// types. It also holds the labels and annotations fedctl puts on member
// objects and the predicates that read them back (who owns an object).
//
// The model keeps KubeFed's shapes and JSON names (Federated<Kind>,
// FederatedNamespace, ReplicaSchedulingPreference), KubeFed being fedctl's
// first dialect, so that those objects decode into it as they are.
//
// It is pure data: no I/O and no clients.
package federation
