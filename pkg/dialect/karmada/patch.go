package karmada

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
)

// op is one JSON-patch operation as an overrider produced it, with where
// it came from for messages and explain.
type op struct {
	Op    string
	Path  string
	Value any // decoded JSON; unused by remove
	// Source names the policy, rule and overrider.
	Source string
	// existed says the member object held something at Path just before
	// the op ran (applier.run records it), for folded.
	existed bool
}

// override is op in the model's form.
func (o op) override() (federation.Override, error) {
	ov := federation.Override{Op: o.Op, Path: o.Path, Source: o.Source}
	if o.Op != "remove" {
		raw, err := json.Marshal(o.Value)
		if err != nil {
			return ov, err
		}
		ov.Value = raw
	}
	return ov, nil
}

// applyOp applies o to doc in place with the semantics Karmada's
// json-patch (github.com/evanphx/json-patch/v5, default options) has for
// the three operations overriders use: add needs the parent to exist and
// sets or inserts; replace and remove need the target to exist. It
// returns the new document (changed when the path is the root).
func applyOp(doc any, o op) (any, error) {
	if o.Path == "" {
		switch o.Op {
		case "add", "replace":
			return deepCopy(o.Value), nil
		}
		return nil, fmt.Errorf("%s of the whole object is not allowed", o.Op)
	}
	if !strings.HasPrefix(o.Path, "/") {
		return nil, fmt.Errorf("path %q must start with /", o.Path)
	}
	tokens := strings.Split(o.Path[1:], "/")
	for i, t := range tokens {
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	parent := doc
	for i, t := range tokens[:len(tokens)-1] {
		next, ok := child(parent, t)
		if !ok {
			return nil, fmt.Errorf("doc is missing path: %q", "/"+strings.Join(tokens[:i+1], "/"))
		}
		parent = next
	}
	last := tokens[len(tokens)-1]
	switch p := parent.(type) {
	case map[string]any:
		_, exists := p[last]
		switch o.Op {
		case "add":
			p[last] = deepCopy(o.Value)
		case "replace":
			if !exists {
				return nil, fmt.Errorf("doc is missing key: %s", o.Path)
			}
			p[last] = deepCopy(o.Value)
		case "remove":
			if !exists {
				return nil, fmt.Errorf("doc is missing key: %s", o.Path)
			}
			delete(p, last)
		default:
			return nil, fmt.Errorf("operation %q is not supported", o.Op)
		}
		return doc, nil
	case []any:
		return doc, setInArray(doc, tokens, p, last, o)
	}
	return nil, fmt.Errorf("doc is missing path: %s", o.Path)
}

// setInArray changes an array, which is a value in its parent: the parent
// is found again to store the new slice.
func setInArray(doc any, tokens []string, arr []any, last string, o op) error {
	n := len(arr)
	var idx int
	if last == "-" && o.Op == "add" {
		idx = n
	} else {
		i, err := strconv.Atoi(last)
		if err != nil {
			return fmt.Errorf("%s: %q is not an array index", o.Path, last)
		}
		switch {
		case i < 0 && o.Op == "add":
			// json-patch v5 (negative indices allowed by default) counts
			// an add's from the end of the array grown by one: -1 appends
			// (partialArray.add)
			i += n + 1
		case i < 0:
			i += n
		}
		idx = i
	}
	limit := n
	if o.Op == "add" {
		limit = n + 1
	}
	if idx < 0 || idx >= limit {
		return fmt.Errorf("%s: index %s is out of bounds (array of %d)", o.Path, last, n)
	}
	var out []any
	switch o.Op {
	case "add":
		out = make([]any, 0, n+1)
		out = append(out, arr[:idx]...)
		out = append(out, deepCopy(o.Value))
		out = append(out, arr[idx:]...)
	case "replace":
		arr[idx] = deepCopy(o.Value)
		return nil
	case "remove":
		out = append(append([]any{}, arr[:idx]...), arr[idx+1:]...)
	default:
		return fmt.Errorf("operation %q is not supported", o.Op)
	}
	holder := doc
	for _, t := range tokens[:len(tokens)-2] {
		holder, _ = child(holder, t)
	}
	key := tokens[len(tokens)-2]
	switch h := holder.(type) {
	case map[string]any:
		h[key] = out
	case []any:
		i, _ := strconv.Atoi(key)
		if i < 0 {
			i += len(h)
		}
		h[i] = out
	}
	return nil
}

// child is the value at token t in a map or an array.
func child(v any, t string) (any, bool) {
	switch c := v.(type) {
	case map[string]any:
		x, ok := c[t]
		return x, ok
	case []any:
		i, err := strconv.Atoi(t)
		if err != nil {
			return nil, false
		}
		if i < 0 {
			i += len(c)
		}
		if i < 0 || i >= len(c) {
			return nil, false
		}
		return c[i], true
	}
	return nil, false
}

// deepCopy copies a decoded JSON value.
func deepCopy(v any) any {
	switch c := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = deepCopy(x)
		}
		return out
	case []string:
		out := make([]any, len(c))
		for i, x := range c {
			out[i] = x
		}
		return out
	case map[string]string:
		out := make(map[string]any, len(c))
		for k, x := range c {
			out[k] = x
		}
		return out
	}
	return v
}

// folded drops each operation whose path a later operation sets again or
// removes, with nothing between them touching that path: Karmada applies
// both (the replica division, then a plaintext replace of /spec/replicas,
// or a remove of it for a member whose HPA scales), but KubeFed's
// overrides name a path once per member. The member object is the same:
// a later set sets the value whatever was there (KubeFed's replace of a
// missing key adds it); a later remove leaves the field out, and when the
// object had no such field before the set (op.existed), the set added it
// and the remove takes it away again, so both go. Additions to a list ("-", an index) insert
// rather than set, and are kept.
func folded(ops []op) []op {
	drop := make([]bool, len(ops))
	for i, o := range ops {
		if o.Op != "replace" && o.Op != "add" || inserts(o) {
			continue
		}
		for j := i + 1; j < len(ops); j++ {
			l := ops[j]
			if l.Path == o.Path {
				switch {
				case (l.Op == "replace" || l.Op == "add") && !inserts(l):
					drop[i] = true
				case l.Op == "remove":
					drop[i] = true
					drop[j] = !o.existed
				}
				break
			}
			if strings.HasPrefix(l.Path, o.Path+"/") || strings.HasPrefix(o.Path, l.Path+"/") {
				break
			}
		}
	}
	out := make([]op, 0, len(ops))
	for i, o := range ops {
		if !drop[i] {
			out = append(out, o)
		}
	}
	return out
}

// inserts says an add puts an item into a list rather than set a key.
func inserts(o op) bool {
	if o.Op != "add" {
		return false
	}
	last := o.Path[strings.LastIndexByte(o.Path, '/')+1:]
	if last == "-" {
		return true
	}
	_, err := strconv.Atoi(last)
	return err == nil
}
