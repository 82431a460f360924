package manifest

import (
	"reflect"

	yamlv3 "go.yaml.in/yaml/v3"
)

// DecodeFastAfterWalk runs what DecodeStrict runs before its reference
// decoder: parse, walk, then the fast path. walked is false when the walk
// found problems (DecodeStrict reports them and decodes nothing); decoded
// says whether the fast path decoded into out.
func DecodeFastAfterWalk(doc Document, out any) (walked, decoded bool) {
	p, err := Parse(doc)
	if err != nil || p.root.Kind == 0 || len(p.root.Content) == 0 {
		return false, false
	}
	rv := reflect.ValueOf(out)
	w := walker{doc: doc, lines: map[string]int{}}
	w.check(p.root.Content[0], rv.Type().Elem(), "")
	if len(w.errs) > 0 {
		return false, false
	}
	return true, decodeFast(doc.Data, &p.root, rv)
}

// DecodeStrictReference is DecodeStrict without the fast path: the walk,
// then the reference decoder.
func DecodeStrictReference(doc Document, out any) (Positions, error) {
	return decodeStrict(doc, out, false)
}

// MayHoldMore is mayHoldMore on data as Parse parses it.
func MayHoldMore(data []byte) bool {
	var root yamlv3.Node
	if yamlv3.Unmarshal(data, &root) != nil {
		return false
	}
	return mayHoldMore(data, &root)
}
