// Package yaml11 reads and writes YAML exactly as sigs.k8s.io/yaml does,
// without its detours. That library, which kubectl uses, works through
// yaml.v2 (YAML 1.1: "yes" and "on" are booleans, "0o17" an integer) and
// JSON: Unmarshal parses with yaml.v2, encodes to JSON and decodes that;
// Marshal encodes to JSON, parses that with yaml.v2 and emits it. fedctl
// parses its input with yaml.v3 once and renders many objects, so it does
// these steps itself: Resolve is yaml.v2's reading of a plain scalar, and
// AppendMarshal writes a JSON-like value byte for byte as
// sigs.k8s.io/yaml.Marshal would, much faster.
//
// Both decline what they do not reproduce exactly (AppendMarshal returns
// false), and callers then use sigs.k8s.io/yaml itself; tests compare the
// two on random values.
package yaml11
