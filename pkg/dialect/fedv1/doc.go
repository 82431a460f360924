// Package fedv1 reads Federation v1's input: plain apps/v1 Deployments and
// ReplicaSets whose replicas are split across members by the annotation
// federation.kubernetes.io/deployment-preferences or
// replica-set-preferences, and the plain Namespaces beside them. It
// compiles them into the federated-object model as KubeFed spelled the same
// thing: a Federated<Kind> placed on every member plus a
// ReplicaSchedulingPreference, which the planner splits with KubeFed's
// algorithm (the one Federation v1's planner became), hash key
// "<namespace>/<name>".
//
// Sources of the behaviour: kubernetes-retired/federation
// pkg/federation-controller/util/replicapreferences/preferences.go (the
// annotation, its default, its case-insensitive JSON) and
// pkg/federatedtypes/{replicaset,deployment}.go.
package fedv1
