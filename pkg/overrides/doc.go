// Package overrides checks and applies the per-cluster JSON patches of a
// federated object (spec.overrides), with KubeFed's rules and the behaviour
// of the JSON-patch library KubeFed shipped (github.com/evanphx/json-patch
// v4.12.0).
//
// Validate checks the whole list, as KubeFed's GetOverrides did every time
// it rendered any cluster: any problem fails the object for every cluster,
// which is the caller's decision to carry out. Apply patches the object for
// one cluster; its failure concerns that cluster only.
//
// The package is pure: no I/O, and neither the object nor the overrides
// passed in are modified.
package overrides
