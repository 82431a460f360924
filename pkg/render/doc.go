// Package render turns federated objects into the objects each member
// cluster should hold, with KubeFed's semantics: replica scheduling
// preferences rewrite placement and /spec/replicas overrides, placement
// picks the members (intersected with the FederatedNamespace's placement for
// namespaced objects), and each member's copy is the template with name,
// namespace, kind and apiVersion set, annotations and finalizers dropped,
// that member's overrides applied and fedctl's markers added.
//
// Member objects share what they have in common, with each other and with
// the input's templates, and are read-only (see Target): a render of 20,000
// member objects holds little more than its distinct parts.
//
// It performs no I/O; everything it needs is passed in, and the same input
// always gives the same output.
package render
