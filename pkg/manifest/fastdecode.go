package manifest

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/fedctl/fedctl/pkg/yaml11"
)

// The reference decoder behind DecodeStrict is sigs.k8s.io/yaml's
// UnmarshalStrict, as in kubectl: it parses the document again with yaml.v2,
// converts the result to JSON with json.Marshal and decodes that with
// encoding/json, after DecodeStrict has already parsed the document with
// yaml.v3 to walk it. That is three parses and a JSON round trip per
// document, most of a render's decoding time. decodeFast derives the same
// value from the yaml.v3 tree DecodeStrict already holds, doing what each of
// those steps does (yaml.v2's YAML 1.1 scalars, json.Marshal's numbers,
// encoding/json's rules for each Go type), and declines, leaving the output
// untouched, on anything it does not model exactly: tags, anchors and
// aliases, merge keys, non-string keys, duplicate keys in free-form parts,
// values that need a conversion or would fail. DecodeStrict then runs the
// reference decoder, so declining costs time, never a difference.
// FuzzDecodeFast checks the two against each other.

// ObjectUnmarshaler is implemented by free-form object types, such as the
// template of a federated object, which DecodeStrict fills with the decoded
// object directly instead of through UnmarshalJSON: that spares encoding the
// largest part of most documents to JSON and decoding it again.
// UnmarshalObject(obj) must do what UnmarshalJSON does with the JSON
// encoding of obj. obj is never nil and holds what
// k8s.io/apimachinery/pkg/util/json decodes: map[string]any, []any, string,
// bool, nil, and numbers as int64 when they have no fraction and fit,
// float64 otherwise. It belongs to the callee.
type ObjectUnmarshaler interface {
	json.Unmarshaler
	UnmarshalObject(obj map[string]any) error
}

// numberMode says how a free-form value holds numbers.
type numberMode uint8

const (
	// numbersGo keeps yaml.v2's types (int64, uint64, float64), which
	// json.Marshal encodes to the text the reference decoder sees.
	numbersGo numberMode = iota
	// numbersFloat64 is encoding/json decoding into interface{}.
	numbersFloat64
	// numbersAPI is k8s.io/apimachinery/pkg/util/json: int64 when the
	// JSON text has no '.' and fits, float64 otherwise.
	numbersAPI
)

// decodeFast decodes the document root into the value out points to, as
// the reference decoder would, and reports whether it did; when it reports
// false, *out is untouched. out must be a non-nil pointer.
func decodeFast(data []byte, root *yamlv3.Node, out reflect.Value) bool {
	if root.Kind != yamlv3.DocumentNode || len(root.Content) != 1 || !out.Elem().IsZero() || hasHiddenSyntax(data) {
		return false
	}
	n := root.Content[0]
	if isNullScalar(n) {
		return true // the reference decodes null into nothing
	}
	fresh := reflect.New(out.Elem().Type())
	if !value(n, fresh) {
		return false
	}
	out.Elem().Set(fresh.Elem())
	return true
}

// hasHiddenSyntax reports what the yaml.v3 tree does not show but yaml.v2
// reads differently: directives, and the non-specific tag "!", which yaml.v3
// resolves away (yaml.v2 makes "! 12" a string). It is conservative: a '!'
// that could start a tag is one at the start of a line or after a blank or
// a flow indicator.
func hasHiddenSyntax(data []byte) bool {
	for i, c := range data {
		switch c {
		case '%':
			if i == 0 || data[i-1] == '\n' {
				return true
			}
		case '!':
			if i == 0 {
				return true
			}
			switch data[i-1] {
			case '\n', '\r', ' ', '\t', '[', '{', ',', ':':
				return true
			}
		}
	}
	return false
}

// plainNode reports whether n carries nothing the fast path leaves to the
// reference decoder: an explicit tag, an anchor or an alias.
func plainNode(n *yamlv3.Node) bool {
	return n.Kind != yamlv3.AliasNode && n.Anchor == "" && n.Style&yamlv3.TaggedStyle == 0
}

const quotedStyles = yamlv3.DoubleQuotedStyle | yamlv3.SingleQuotedStyle | yamlv3.LiteralStyle | yamlv3.FoldedStyle

// scalarOf is what yaml.v2 reads a scalar node as: quoted and block scalars
// are strings, plain ones are resolved (YAML 1.1). A timestamp decodes into
// interface{}, and so reaches JSON, as its text.
func scalarOf(n *yamlv3.Node) yaml11.Scalar {
	if n.Style&quotedStyles != 0 {
		return yaml11.Scalar{}
	}
	s := yaml11.Resolve(n.Value)
	if s.Kind == yaml11.Timestamp {
		return yaml11.Scalar{}
	}
	return s
}

func isNullScalar(n *yamlv3.Node) bool {
	return n.Kind == yamlv3.ScalarNode && plainNode(n) && scalarOf(n).Kind == yaml11.Null
}

// keyOf returns a mapping key as the string the reference decoder sees, or
// false for keys it does not model: non-scalars, keys that are not strings
// in YAML 1.1 (the reference turns 1, true and 1.5 into "1", "true" and
// "1.5"), and the merge key.
func keyOf(n *yamlv3.Node) (string, bool) {
	if n.Kind != yamlv3.ScalarNode || !plainNode(n) {
		return "", false
	}
	if n.Style&quotedStyles != 0 {
		return n.Value, true
	}
	if n.Value == "<<" || yaml11.Resolve(n.Value).Kind != yaml11.String {
		return "", false
	}
	return n.Value, true
}

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonNumberType      = reflect.TypeFor[json.Number]()
)

// value decodes n into v as encoding/json decodes the JSON the reference
// decoder would produce for n (decodeState.value).
func value(n *yamlv3.Node, v reflect.Value) bool {
	if !plainNode(n) {
		return false
	}
	switch n.Kind {
	case yamlv3.ScalarNode:
		return literal(n, v)
	case yamlv3.MappingNode:
		return object(n, v)
	case yamlv3.SequenceNode:
		return array(n, v)
	}
	return false
}

// literal is decodeState.literalStore.
func literal(n *yamlv3.Node, v reflect.Value) bool {
	s := scalarOf(n)
	if s.Kind == yaml11.Special {
		return false
	}
	u, ut, pv := indirect(v, s.Kind == yaml11.Null)
	if u != nil {
		return unmarshalJSON(u, n)
	}
	if ut != nil {
		return s.Kind == yaml11.String && ut.UnmarshalText([]byte(n.Value)) == nil
	}
	v = pv
	switch s.Kind {
	case yaml11.Null:
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice:
			v.SetZero()
		}
		return true
	case yaml11.Bool:
		switch {
		case v.Kind() == reflect.Bool:
			v.SetBool(s.Bool)
		case v.Kind() == reflect.Interface && v.NumMethod() == 0:
			v.Set(reflect.ValueOf(s.Bool))
		default:
			return false
		}
		return true
	case yaml11.String:
		switch {
		case v.Kind() == reflect.String && v.Type() != jsonNumberType:
			v.SetString(n.Value)
		case v.Kind() == reflect.Interface && v.NumMethod() == 0:
			v.Set(reflect.ValueOf(n.Value))
		default: // []byte is base64, numbers and bools need a conversion
			return false
		}
		return true
	}
	text := s.JSONNumber()
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return false
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return false
		}
		v.Set(reflect.ValueOf(f))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		i, err := strconv.ParseInt(text, 10, 64)
		if err != nil || v.OverflowInt(i) {
			return false
		}
		v.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u, err := strconv.ParseUint(text, 10, 64)
		if err != nil || v.OverflowUint(u) {
			return false
		}
		v.SetUint(u)
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, v.Type().Bits())
		if err != nil || v.OverflowFloat(f) {
			return false
		}
		v.SetFloat(f)
	default: // a string field given a number: the reference converts it
		return false
	}
	return true
}

// object is decodeState.object.
func object(n *yamlv3.Node, v reflect.Value) bool {
	u, ut, pv := indirect(v, false)
	if u != nil {
		if ou, ok := u.(ObjectUnmarshaler); ok {
			m, ok := freeObject(n, numbersAPI)
			return ok && ou.UnmarshalObject(m) == nil
		}
		return unmarshalJSON(u, n)
	}
	if ut != nil {
		return false
	}
	v = pv
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return false
		}
		m, ok := freeObject(n, numbersFloat64)
		if ok {
			v.Set(reflect.ValueOf(m))
		}
		return ok
	case reflect.Map:
		t := v.Type()
		if t.Key().Kind() != reflect.String || reflect.PointerTo(t.Key()).Implements(textUnmarshalerType) {
			return false
		}
		if v.IsNil() {
			v.Set(reflect.MakeMapWithSize(t, len(n.Content)/2))
		}
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, ok := keyOf(n.Content[i])
			if !ok || seen[key] {
				return false
			}
			seen[key] = true
			elem := reflect.New(t.Elem()).Elem()
			if !value(n.Content[i+1], elem) {
				return false
			}
			kv := reflect.New(t.Key()).Elem()
			kv.SetString(key)
			v.SetMapIndex(kv, elem)
		}
		return true
	case reflect.Struct:
		fields := fieldsOf(v.Type())
		seen := make(map[string]bool, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, ok := keyOf(n.Content[i])
			if !ok || seen[key] {
				return false
			}
			seen[key] = true
			// Only exact names: encoding/json also matches other cases,
			// and the ambiguous and ",string" fields are not modelled.
			f, ok := fields[key]
			if !ok || f.ambiguous || f.quoted {
				return false
			}
			subv := v
			for _, ind := range f.index {
				if subv.Kind() == reflect.Pointer {
					if subv.IsNil() {
						if !subv.CanSet() {
							return false
						}
						subv.Set(reflect.New(subv.Type().Elem()))
					}
					subv = subv.Elem()
				}
				subv = subv.Field(ind)
			}
			if !value(n.Content[i+1], subv) {
				return false
			}
		}
		return true
	}
	return false
}

// array is decodeState.array, for a fresh (empty) destination.
func array(n *yamlv3.Node, v reflect.Value) bool {
	u, ut, pv := indirect(v, false)
	if u != nil {
		return unmarshalJSON(u, n)
	}
	if ut != nil {
		return false
	}
	v = pv
	switch v.Kind() {
	case reflect.Interface:
		if v.NumMethod() != 0 {
			return false
		}
		a, ok := freeArray(n, numbersFloat64)
		if ok {
			v.Set(reflect.ValueOf(a))
		}
		return ok
	case reflect.Slice:
		if v.Len() != 0 || v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			if !value(item, s.Index(i)) {
				return false
			}
		}
		v.Set(s)
		return true
	}
	return false
}

// unmarshalJSON hands a json.Unmarshaler the JSON text the reference
// decoder would give it for n.
func unmarshalJSON(u json.Unmarshaler, n *yamlv3.Node) bool {
	v, ok := free(n, numbersGo)
	if !ok {
		return false
	}
	data, err := json.Marshal(v)
	return err == nil && u.UnmarshalJSON(data) == nil
}
