package overrides

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Ops an override may use. An empty op means OpReplace, as in KubeFed,
// whose CRD allowed exactly these (^(add|remove|replace)?$). move, copy and
// test are impossible anyway: an override has no "from" field.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
)

// forbiddenPaths are the paths no override may use, with the reason. They
// are KubeFed's invalidPaths (pkg/controller/util/overrides.go), compared as
// exact strings like KubeFed did, so a path that contains one of them, such
// as "/metadata", is allowed. KubeFed's reasons:
//
//	Namespace and name may not be overridden since these fields are the
//	primary mechanism of association between a federated resource in the
//	host cluster and the target resources in the member clusters.
//
//	Kind should always be sourced from the FTC and not vary across member
//	clusters.
//
//	apiVersion can be overridden to support managing resources like Ingress
//	which can exist in different groups at different versions. Users will
//	need to take care not to abuse this capability.
var forbiddenPaths = map[string]string{
	"/metadata/namespace":    "the namespace associates the federated object with its member objects",
	"/metadata/name":         "the name associates the federated object with its member objects",
	"/metadata/generateName": "the name associates the federated object with its member objects",
	"/kind":                  "the kind comes from the federated type and must not vary across member clusters",
}

// FieldError is one problem with one field of spec.overrides. Field is the
// field's path in the federated object, such as
// spec.overrides[1].clusterOverrides[0].path, so that the caller can point
// at the line that holds it.
type FieldError struct {
	Field string
	Err   error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *FieldError) Unwrap() error { return e.Err }

// Validate checks a federated object's whole spec.overrides and reports
// every problem, each as a *FieldError (the result's Unwrap() []error lists
// them in field order). It returns nil when there is none.
//
// KubeFed's rules (GetOverrides):
//   - a clusterName may appear only once;
//   - a path may appear only once per cluster (exact string comparison);
//   - no path may be one of forbiddenPaths; "/apiVersion" is allowed.
//
// The CRD's rule: op is add, remove, replace or empty (replace).
//
// fedctl's additions, for what KubeFed let through to fail or misbehave at
// propagation time:
//   - path must be an RFC 6901 JSON pointer starting with "/", where "~" is
//     always followed by "0" or "1". json-patch v4 read "a/b" as "/b", read
//     "~2" literally, and with path "" replaced the whole object, name and
//     kind included.
//   - value must be valid JSON, with numbers that fit a float64.
//   - add and replace need a value. KubeFed decoded a missing value and an
//     explicit null alike (its Value was an interface{} with omitempty), and
//     json-patch v4 then wrote null at path. A missing value is far more
//     often a mistake than a wish for null, so it is an error here, and
//     "value: null" still writes null exactly as KubeFed did.
//
// A value on a remove is ignored, as in KubeFed.
func Validate(ovs []federation.ClusterOverrides) error {
	var errs []error
	first := make(map[string]int, len(ovs))
	for i, entry := range ovs {
		switch {
		case entry.ClusterName != "" && entry.ClusterSelector != nil:
			errs = append(errs, &FieldError{Field: entryField(i) + ".clusterSelector", Err: errors.New("give clusterName or clusterSelector, not both")})
		case entry.ClusterSelector != nil:
			if _, err := metav1.LabelSelectorAsSelector(entry.ClusterSelector); err != nil {
				errs = append(errs, &FieldError{Field: entryField(i) + ".clusterSelector", Err: err})
			}
		case entry.ClusterName == "":
			errs = append(errs, &FieldError{Field: entryField(i) + ".clusterName", Err: errors.New("is required: name one member, or give clusterSelector to select members by label")})
		default:
			if j, dup := first[entry.ClusterName]; dup {
				errs = append(errs, &FieldError{Field: entryField(i) + ".clusterName", Err: duplicateCluster(entry.ClusterName, j)})
			} else {
				first[entry.ClusterName] = i
			}
		}
		errs = append(errs, validateContainers(i, entry.Containers)...)
		_, problems := prepareEntry(entry)
		for _, p := range problems {
			errs = append(errs, &FieldError{Field: itemField(i, p.index) + "." + p.field, Err: p.err})
		}
	}
	return errors.Join(errs...)
}

// operation is an override ready for json-patch.
type operation struct {
	op    string          // add, remove or replace, never empty
	path  string          // a valid JSON pointer
	value json.RawMessage // nil: no value (see patchValue)
	// entry and item locate it: spec.overrides[entry].clusterOverrides[item];
	// field, when set, instead (a typed container override's field, item -1).
	entry, item int
	field       string
}

// problem is what is wrong with one field of one override of an entry.
type problem struct {
	index int    // position in clusterOverrides
	field string // "op", "path" or "value"
	err   error
}

// prepareEntry checks the overrides of one spec.overrides entry with every
// rule that concerns a single cluster and returns them as json-patch
// operations. Validate and Apply share it, so that whatever Validate accepts
// Apply accepts too.
func prepareEntry(entry federation.ClusterOverrides) ([]operation, []problem) {
	ops := make([]operation, 0, len(entry.ClusterOverrides))
	var problems []problem
	for k, o := range entry.ClusterOverrides {
		op, err := checkOp(o.Op)
		if err != nil {
			problems = append(problems, problem{k, "op", err})
		}
		if err := checkPath(o.Path); err != nil {
			problems = append(problems, problem{k, "path", err})
		} else {
			for j := range k {
				if entry.ClusterOverrides[j].Path == o.Path {
					problems = append(problems, problem{k, "path", samePath(o.Path, entry, j)})
					break
				}
			}
		}
		value, err := patchValue(o.Value)
		switch {
		case err != nil:
			problems = append(problems, problem{k, "value", err})
		case value == nil && len(bytes.TrimSpace(o.Value)) == 0 && (op == OpAdd || op == OpReplace):
			problems = append(problems, problem{k, "value", fmt.Errorf(`value is required for op %q (KubeFed wrote null for a missing value; write "value: null" for that)`, op)})
		}
		if op == OpRemove {
			value = nil
		}
		ops = append(ops, operation{op: op, path: o.Path, value: value})
	}
	return ops, problems
}

// checkOp returns the op an override means: op itself, or replace when op
// is empty.
func checkOp(op string) (string, error) {
	switch op {
	case "":
		return OpReplace, nil
	case OpAdd, OpRemove, OpReplace:
		return op, nil
	default:
		return op, fmt.Errorf("unsupported op %q: must be add, remove or replace (empty means replace)", op)
	}
}

func checkPath(path string) error {
	if path == "" {
		return errors.New(`path is empty: it must be a JSON pointer to a field, such as "/spec/replicas"`)
	}
	if path[0] != '/' {
		return fmt.Errorf(`path %q is not a JSON pointer: it must start with "/"`, path)
	}
	for i := 0; i < len(path); i++ {
		if path[i] == '~' && (i+1 == len(path) || (path[i+1] != '0' && path[i+1] != '1')) {
			return fmt.Errorf(`path %q is not a valid JSON pointer: "~" must be followed by "0" or "1" (~0 is "~", ~1 is "/")`, path)
		}
	}
	if reason, ok := forbiddenPaths[path]; ok {
		return fmt.Errorf("path %q cannot be overridden: %s", path, reason)
	}
	return nil
}

// patchValue returns an override's value the way KubeFed handed it to
// json-patch. KubeFed decoded the value into an interface{} and encoded it
// again with omitempty, so:
//   - a missing value and null were both left out (nil here), and json-patch
//     v4 then wrote null. Leaving null out also avoids v4's panic on a later
//     operation below a null value.
//   - numbers were re-encoded: 1.0 and 1e2 became 1 and 100, which decode as
//     int64. Values with a fraction or exponent are re-encoded here for that.
//   - leading whitespace was gone; it would hide an array from json-patch.
//
// KubeFed's float64 decoding also rounded integers beyond 2^53; fedctl keeps
// them exact.
func patchValue(raw json.RawMessage) (json.RawMessage, error) {
	v := bytes.TrimSpace(raw)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	if !json.Valid(v) {
		return nil, errors.New("value is not valid JSON")
	}
	if v[0] == '"' || !bytes.ContainsAny(v, ".eE") {
		return v, nil
	}
	var x any
	if err := utiljson.Unmarshal(v, &x); err != nil {
		return nil, fmt.Errorf("value cannot be decoded: %w", err)
	}
	out, err := json.Marshal(x)
	if err != nil {
		return nil, fmt.Errorf("value cannot be encoded: %w", err)
	}
	return out, nil
}

func samePath(path string, entry federation.ClusterOverrides, first int) error {
	if entry.ClusterName == "" {
		return fmt.Errorf("path %q appears more than once in this entry (also clusterOverrides[%d])", path, first)
	}
	return fmt.Errorf("path %q appears more than once for cluster %q (also clusterOverrides[%d])", path, entry.ClusterName, first)
}

func duplicateCluster(name string, first int) error {
	return fmt.Errorf("cluster %q appears more than once (also %s)", name, entryField(first))
}

func entryField(i int) string { return fmt.Sprintf("spec.overrides[%d]", i) }

func itemField(i, k int) string { return fmt.Sprintf("spec.overrides[%d].clusterOverrides[%d]", i, k) }
