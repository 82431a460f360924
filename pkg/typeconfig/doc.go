// Package typeconfig knows which Kubernetes types can be federated: KubeFed's
// ten default types plus those enabled in the federation file, less the
// defaults it disables, each with its group, version, kind, plural and
// scope, and the Federated<Kind> that carries it.
//
// It reproduces kubefedctl enable: Lookup resolves a name the way
// kubefedctl's LookupAPIResource does, and TypeConfig, CRD and Manifests
// generate the FederatedTypeConfig and the federated CRD it would create.
// A Registry answers the pipeline's question "which type does
// FederatedDeployment carry?" with a map read, and computes what enable and
// disable change in the federation file.
//
// It is pure data: resolving a type name through a member's discovery
// information takes that information as input, and it never talks to a
// cluster or reads a file.
package typeconfig
