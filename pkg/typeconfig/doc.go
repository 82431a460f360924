// Package typeconfig knows which Kubernetes types can be federated: KubeFed's
// default types plus those enabled in the federation file, each with its
// group, version, kind, plural and scope, and the Federated<Kind> that
// carries it.
//
// It is pure data: resolving a type name through a member's discovery
// information takes that information as input.
package typeconfig
