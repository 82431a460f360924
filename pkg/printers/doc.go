// Package printers writes fedctl's results as tables, YAML, JSON or names,
// with kubectl's conventions: upper-case headers without spaces, columns
// separated by three spaces, keys sorted, exactly one trailing newline.
// Member objects are written byte for byte as sigs.k8s.io/yaml.Marshal and
// encoding/json.Marshal write them, by faster encoders of their own.
package printers
