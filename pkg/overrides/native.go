package overrides

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// applyNative applies the patch to a copy of obj directly on Go values,
// without the encode, patch and decode round trip through json-patch, which
// costs about half a millisecond per Deployment-sized object and dominated
// rendering. It handles the cases that cannot fail: every container on the
// way exists, array indices are canonical and in range, a removed member
// exists. For anything else it reports ok=false and the caller applies the
// patch with json-patch, which then produces the result or the exact error
// KubeFed's library gave. The differential test in differential_test.go
// holds both paths to json-patch v4's results.
func (p *patch) applyNative(obj map[string]any) (out map[string]any, ok bool) {
	root, ok := copyJSON(obj)
	if !ok {
		return nil, false
	}
	doc := root.(map[string]any)
	for _, o := range p.ops {
		if !applyOp(doc, o) {
			return nil, false
		}
	}
	return doc, true
}

func applyOp(doc map[string]any, o operation) bool {
	if !utf8.ValidString(o.path) {
		return false // json-patch sees it with invalid bytes replaced
	}
	tokens := strings.Split(o.path[1:], "/")
	for i, t := range tokens {
		tokens[i] = unescape(t)
	}
	var value any
	if o.op != OpRemove && o.value != nil {
		if err := utiljson.Unmarshal(o.value, &value); err != nil {
			return false
		}
	}
	// set replaces the container holding the parent, for slices that grow
	// or shrink; the root is a map and never needs it.
	var set func(any)
	var parent any = doc
	for _, t := range tokens[:len(tokens)-1] {
		switch c := parent.(type) {
		case map[string]any:
			child, exists := c[t]
			if !exists {
				return false
			}
			set = func(v any) { c[t] = v }
			parent = child
		case []any:
			i, ok := index(t, len(c))
			if !ok || i >= len(c) {
				return false
			}
			set = func(v any) { c[i] = v }
			parent = c[i]
		default:
			return false
		}
	}
	last := tokens[len(tokens)-1]
	switch c := parent.(type) {
	case map[string]any:
		if o.op == OpRemove {
			if _, exists := c[last]; !exists {
				return false
			}
			delete(c, last)
			return true
		}
		c[last] = value // add, and replace of a missing member, both set it
		return true
	case []any:
		if set == nil {
			return false
		}
		if o.op == OpAdd && last == "-" {
			set(append(c, value))
			return true
		}
		i, ok := index(last, len(c))
		if !ok {
			return false
		}
		switch {
		case o.op == OpReplace && i < len(c):
			c[i] = value
		case o.op == OpRemove && i < len(c):
			set(append(c[:i:i], c[i+1:]...))
		case o.op == OpAdd && i <= len(c):
			grown := make([]any, 0, len(c)+1)
			grown = append(grown, c[:i]...)
			grown = append(grown, value)
			set(append(grown, c[i:]...))
		default:
			return false
		}
		return true
	}
	return false
}

// index reads a canonical array index: digits without a leading zero.
// json-patch also accepts "01", "+1" and negative indices; those take the
// json-patch path.
func index(t string, n int) (int, bool) {
	if t == "" || len(t) > 1 && t[0] == '0' {
		return 0, false
	}
	for _, r := range t {
		if r < '0' || r > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(t)
	return i, err == nil && i <= n
}

func unescape(t string) string {
	if !strings.Contains(t, "~") {
		return t
	}
	return strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
}

// copyJSON deep-copies a JSON-like value, turning integral float64s that
// fit an int64 into int64 as the json-patch path's encode and decode does
// (k8s.io/apimachinery/pkg/util/json). Any other type, and strings that are
// not valid UTF-8 (which encoding would alter), report ok=false.
func copyJSON(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, ok := copyJSON(e)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			out[k] = c
		}
		return out, true
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, ok := copyJSON(e)
			if !ok {
				return nil, false
			}
			out[i] = c
		}
		return out, true
	case float64:
		// json.Marshal writes integral values below 1e21 without an
		// exponent, and util/json decodes those that fit as int64.
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 && math.Abs(x) < 1e21 {
			return int64(x), true
		}
		return x, true
	case string:
		return x, utf8.ValidString(x)
	case bool, int64, nil:
		return x, true
	}
	return nil, false
}
