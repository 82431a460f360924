// Package karmada reads Karmada's policies over plain Kubernetes manifests
// (policy.karmada.io/v1alpha1 PropagationPolicy, ClusterPropagationPolicy,
// OverridePolicy and ClusterOverridePolicy) and compiles each plain object
// into fedctl's federated-object model: the members Karmada would schedule
// it to, each member's replica count, and each member's overrides as
// JSON-patch operations, so that every stage after reading renders, applies
// and explains it as it does a KubeFed object.
//
// Karmada decides per member with facts fedctl has when it reads (the
// members' names, labels, provider, region and zones), so this package
// decides there too and hands the model explicit members and operations;
// the reasons go along as the object's notes, for explain. What only a
// running Karmada knows (cluster capacity for DynamicWeight and Aggregated,
// scheduler scores for spread constraints that must pick) fails the object
// with an error naming the policy.
//
// The behaviour is Karmada v1.16+'s; comments cite the Karmada source file
// each rule comes from (karmada-io/karmada, paths from the repository root).
package karmada
