package manifest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/yaml11"
)

// Document is one YAML or JSON document and where it came from.
type Document struct {
	File string // path as the user gave it, Stdin (STDIN) for standard input
	Line int    // line of the document's first line in File (1-based)
	Data []byte
	// Kustomization is the -k directory whose build output the document
	// is ("" for -f input): File then names that output, which no other
	// command reads.
	Kustomization string
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// DecodeStrict decodes doc into out, a pointer to a struct whose fields carry
// json tags, the way sigs.k8s.io/yaml.UnmarshalStrict does. Before decoding it
// walks the YAML tree against out's type and reports, all at once, every
// unknown field (with a suggestion when one is close), every duplicate key and
// every value of the wrong kind, each as an *Error carrying doc.File and the
// line of the field. Values whose type decodes itself (json.Unmarshaler) and
// interface-typed values are accepted as they are, so embedded free-form
// objects keep unknown fields.
//
// The returned Positions let later validation point at the line of a field.
func DecodeStrict(doc Document, out any) (Positions, error) {
	return decodeStrict(doc, out, true)
}

// decodeStrict is DecodeStrict, with or without the fast path; tests hold
// the two to the same result.
func decodeStrict(doc Document, out any, fast bool) (Positions, error) {
	if err := checkOut(out); err != nil {
		return Positions{doc: doc, lines: map[string]int{}}, err
	}
	p, err := Parse(doc)
	if err != nil {
		return Positions{doc: doc, lines: map[string]int{}}, err
	}
	return p.decodeStrict(out, fast)
}

func checkOut(out any) error {
	if rv := reflect.ValueOf(out); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("DecodeStrict needs a non-nil pointer, got %T", out)
	}
	return nil
}

// Parsed is a document parsed once, so that a caller can look at it (Peek)
// before choosing the type to decode it into (DecodeStrict) without parsing
// it again.
type Parsed struct {
	doc  Document
	root yamlv3.Node
}

// Parse parses doc. A syntax error is an *Error at its line.
func Parse(doc Document) (*Parsed, error) {
	p := &Parsed{doc: doc}
	if err := yamlv3.Unmarshal(doc.Data, &p.root); err != nil {
		return nil, syntaxError(doc, err)
	}
	if mayHoldMore(doc.Data, &p.root) {
		if err := onlyOneDocument(doc); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// mayHoldMore says whether data, which parsed into root, may hold a second
// document that Unmarshal ignored without a word: after a "..." end
// marker, or after a flow ({...} or [...]) root, where yaml.v3 starts a
// new document at the next node. Split cuts documents at "---" and JSON
// streams into objects, so this is rare, and the full check (a second
// parse) is kept for it. A JSON document is a flow root too: json.Valid,
// which accepts exactly one value and allocates nothing, clears it
// without parsing it again.
func mayHoldMore(data []byte, root *yamlv3.Node) bool {
	if bytes.Contains(data, []byte("\n...")) {
		return true
	}
	return len(root.Content) > 0 && root.Content[0].Style&yamlv3.FlowStyle != 0 && !json.Valid(data)
}

// onlyOneDocument fails when doc holds a second YAML document, at its line:
// its objects would otherwise be left out in silence.
func onlyOneDocument(doc Document) error {
	dec := yamlv3.NewDecoder(bytes.NewReader(doc.Data))
	var first, second yamlv3.Node
	if err := dec.Decode(&first); err != nil {
		return syntaxError(doc, err)
	}
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
		return nil
	case err != nil:
		// yaml.v3 reads on after the first document and stops at what
		// follows it, at its line
		e := syntaxError(doc, err).(*Error)
		e.Err = fmt.Errorf("content after the end of the document; separate documents with a \"---\" line (%v)", e.Err)
		return e
	case second.Kind == 0:
		return nil // comments only
	}
	return &Error{File: doc.File, Line: doc.Line + second.Line - 1, Err: errors.New("a second document, not separated by a \"---\" line; put \"---\" before it")}
}

// Peek decodes the document into out leniently, exactly as
// yaml.v3's Unmarshal(doc.Data, out) would, from the parsed tree.
func (p *Parsed) Peek(out any) error {
	if p.root.Kind == 0 {
		return nil // nothing but comments: Unmarshal leaves out alone
	}
	return p.root.Decode(out)
}

// DecodeStrict is DecodeStrict on the parsed document.
func (p *Parsed) DecodeStrict(out any) (Positions, error) {
	return p.decodeStrict(out, true)
}

// decodeStrict is Parsed.DecodeStrict, with or without the fast path.
func (p *Parsed) decodeStrict(out any, fast bool) (Positions, error) {
	doc := p.doc
	pos := Positions{doc: doc, lines: map[string]int{}}
	if err := checkOut(out); err != nil {
		return pos, err
	}
	root := &p.root
	if root.Kind == 0 || len(root.Content) == 0 {
		return pos, nil // an empty document decodes to the zero value
	}
	rv := reflect.ValueOf(out)
	w := walker{doc: doc, lines: pos.lines}
	w.check(root.Content[0], rv.Type().Elem(), "")
	if len(w.errs) > 0 {
		return pos, errors.Join(w.errs...)
	}
	if fast && decodeFast(doc.Data, root, rv) {
		return pos, nil
	}
	// Keys that differ in YAML but not as JSON strings (0 and "0", or
	// true and "true") in a free-form value, which the walk does not
	// enter, would reach the JSON decoder in Go's random map order: one
	// run keeps the first, the next the last. They are duplicates.
	if k, first, path := firstStringCollision(root.Content[0], ""); k != nil {
		return pos, &Error{File: doc.File, Line: doc.Line + k.Line - 1, Field: join(path, k.Value),
			Err: fmt.Errorf("duplicate field (first set at line %d as %s; YAML keys are strings here)", doc.Line+first.Line-1, first.Value)}
	}
	if err := yaml.UnmarshalStrict(doc.Data, out); err != nil {
		// A null key (~, null or nothing before the colon) inside a
		// free-form value, which the walk does not enter, is the one error
		// the library finds in map order: with two, which one it names
		// changes from run to run. Name the first in the document instead.
		if k, path := firstNullKey(root.Content[0], ""); k != nil {
			return pos, &Error{File: doc.File, Line: doc.Line + k.Line - 1, Field: path,
				Err: fmt.Errorf("a key is null (%q); quote it if it is a name (\"~\"), or remove the entry", k.Value)}
		}
		// The walk mirrors what the JSON decoder accepts, so this is a case
		// it does not model; report it at the document rather than lose it.
		return pos, &Error{File: doc.File, Line: doc.Line, Err: err}
	}
	return pos, nil
}

// firstStringCollision finds, in document order, the first mapping key
// whose value as a string repeats an earlier key of the same mapping (the
// walk reports exact duplicates where it goes; this finds those of
// free-form parts too), with the earlier key and the mapping's path.
func firstStringCollision(n *yamlv3.Node, path string) (key, first *yamlv3.Node, at string) {
	switch n.Kind {
	case yamlv3.MappingNode:
		seen := make(map[string]*yamlv3.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yamlv3.ScalarNode && k.ShortTag() != "!!merge" {
				key := referenceKey(k)
				if prev, dup := seen[key]; dup {
					return k, prev, path
				}
				seen[key] = k
			}
			if found, prev, where := firstStringCollision(v, join(path, k.Value)); found != nil {
				return found, prev, where
			}
		}
	case yamlv3.SequenceNode:
		for i, item := range n.Content {
			if found, prev, where := firstStringCollision(item, fmt.Sprintf("%s[%d]", path, i)); found != nil {
				return found, prev, where
			}
		}
	}
	return nil, nil, ""
}

// referenceKey is the JSON key the reference decoder makes of the scalar
// key k: YAML 1.1 resolves a plain key (yaml.v2), and sigs.k8s.io/yaml
// writes a number or a boolean as a string, so 0, 00 and .0 are all "0"
// and 1 and "1" collide. Quoted and tagged keys are their text.
func referenceKey(k *yamlv3.Node) string {
	if k.Style&(quotedStyles|yamlv3.TaggedStyle) != 0 {
		return k.Value
	}
	s := yaml11.Resolve(k.Value)
	switch s.Kind {
	case yaml11.Bool:
		return strconv.FormatBool(s.Bool)
	case yaml11.Int:
		return strconv.FormatInt(s.Int, 10)
	case yaml11.Uint:
		return strconv.FormatUint(s.Uint, 10)
	case yaml11.Float:
		return strconv.FormatFloat(s.Float, 'g', -1, 32) // sigs.k8s.io/yaml's conversion
	case yaml11.Special:
		switch v := strings.ToLower(k.Value); {
		case strings.Contains(v, "nan"):
			return ".nan"
		case strings.HasPrefix(v, "-"):
			return "-.inf"
		}
		return ".inf"
	}
	return k.Value
}

// firstNullKey finds, in document order, the first mapping key that YAML
// reads as null, and the path of the mapping that holds it. Aliases are not
// followed: the anchored node is met where it is defined.
func firstNullKey(n *yamlv3.Node, path string) (*yamlv3.Node, string) {
	switch n.Kind {
	case yamlv3.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind == yamlv3.ScalarNode && k.ShortTag() == "!!null" {
				return k, path
			}
			if found, at := firstNullKey(k, path); found != nil {
				return found, at
			}
			if found, at := firstNullKey(v, join(path, k.Value)); found != nil {
				return found, at
			}
		}
	case yamlv3.SequenceNode:
		for i, item := range n.Content {
			if found, at := firstNullKey(item, fmt.Sprintf("%s[%d]", path, i)); found != nil {
				return found, at
			}
		}
	}
	return nil, ""
}

// Positions remembers the line of every field of a decoded document, by path
// ("clusters[1].labels.region").
type Positions struct {
	doc   Document
	lines map[string]int
}

// File is the file the document came from.
func (p Positions) File() string { return p.doc.File }

// Line returns the line of path, or of its closest recorded parent, or the
// document's first line.
func (p Positions) Line(path string) int {
	for path != "" {
		if l, ok := p.lines[path]; ok {
			return l
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return p.doc.Line
}

// Has says whether the document holds the field at path.
func (p Positions) Has(path string) bool {
	_, ok := p.lines[path]
	return ok
}

// Errorf returns an *Error at path's line in the document.
func (p Positions) Errorf(path, format string, args ...any) *Error {
	return &Error{File: p.doc.File, Line: p.Line(path), Field: path, Err: fmt.Errorf(format, args...)}
}

// syntaxError turns a YAML parser error into an *Error with an absolute line.
// yaml.v3 reports "yaml: line N: message" relative to the document.
func syntaxError(doc Document, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := doc.Line
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if l, convErr := strconv.Atoi(n); convErr == nil {
				line = doc.Line + l - 1
				msg = tail
			}
		}
	}
	return &Error{File: doc.File, Line: line, Err: fmt.Errorf("invalid YAML: %s", msg)}
}

type walker struct {
	doc   Document
	lines map[string]int
	errs  []error
}

func (w *walker) fail(n *yamlv3.Node, path, format string, args ...any) {
	w.errs = append(w.errs, &Error{
		File:  w.doc.File,
		Line:  w.doc.Line + n.Line - 1,
		Field: path,
		Err:   fmt.Errorf(format, args...),
	})
}

func (w *walker) check(n *yamlv3.Node, t reflect.Type, path string) {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if path != "" {
		if _, seen := w.lines[path]; !seen {
			w.lines[path] = w.doc.Line + n.Line - 1
		}
	}
	if n.ShortTag() == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(jsonUnmarshaler) {
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if w.expect(n, yamlv3.MappingNode, path) {
			w.checkStruct(n, t, path)
		}
	case reflect.Map:
		if w.expect(n, yamlv3.MappingNode, path) {
			w.eachPair(n, path, func(key string, _, value *yamlv3.Node) {
				w.check(value, t.Elem(), join(path, key))
			})
		}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 { // []byte is base64 text in JSON
			w.scalar(n, path, "!!str", "a base64 string")
			return
		}
		if w.expect(n, yamlv3.SequenceNode, path) {
			for i, item := range n.Content {
				w.check(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
			}
		}
	case reflect.String:
		if reflect.PointerTo(t).Implements(textUnmarshaler) {
			return
		}
		w.scalar(n, path, "!!str", "a string")
	case reflect.Bool:
		w.scalar(n, path, "!!bool", "true or false")
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		w.scalar(n, path, "!!int", "an integer")
	case reflect.Float32, reflect.Float64:
		if resolvedTag(n) != "!!int" {
			w.scalar(n, path, "!!float", "a number")
		}
	}
}

// yaml11Bools are the plain scalars YAML 1.1 reads as booleans. The decoder
// behind DecodeStrict (sigs.k8s.io/yaml, as in kubectl) follows YAML 1.1,
// while the tree is parsed with YAML 1.2 rules, where these are strings.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
}

// resolvedTag is the tag the decoder will see for n.
func resolvedTag(n *yamlv3.Node) string {
	quoted := yamlv3.DoubleQuotedStyle | yamlv3.SingleQuotedStyle | yamlv3.LiteralStyle | yamlv3.FoldedStyle
	if n.Kind == yamlv3.ScalarNode && n.Style&quoted == 0 && yaml11Bools[n.Value] {
		return "!!bool"
	}
	return n.ShortTag()
}

// scalar checks that n is a scalar with the given resolved tag. A string field
// given a number or boolean is the classic YAML trap (labels: {tier: 1}), so
// the message says how to quote it.
func (w *walker) scalar(n *yamlv3.Node, path, tag, what string) {
	got := resolvedTag(n)
	switch {
	case n.Kind != yamlv3.ScalarNode:
		w.fail(n, path, "must be %s, got %s", what, kindName(n))
	case got != tag && tag == "!!str":
		w.fail(n, path, "must be a string, got %s %s; quote it: %q", tagName(got), n.Value, n.Value)
	case got != tag:
		w.fail(n, path, "must be %s, got %q", what, n.Value)
	}
}

func (w *walker) expect(n *yamlv3.Node, kind yamlv3.Kind, path string) bool {
	if n.Kind == kind {
		return true
	}
	want := map[yamlv3.Kind]string{yamlv3.MappingNode: "a mapping", yamlv3.SequenceNode: "a list"}[kind]
	w.fail(n, path, "must be %s, got %s", want, kindName(n))
	return false
}

// eachPair calls fn for every key of a mapping in document order, reporting
// duplicate keys once each (JSON decoders keep the last one silently, which
// hides edits that never take effect).
func (w *walker) eachPair(n *yamlv3.Node, path string, fn func(key string, keyNode, value *yamlv3.Node)) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.ShortTag() == "!!merge" {
			w.fail(k, path, "YAML merge keys (<<) are not supported")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			w.fail(k, join(path, k.Value), "duplicate field (first set at line %d)", w.doc.Line+first-1)
			continue
		}
		if resolvedTag(k) == "!!bool" {
			// YAML 1.1 turns the key itself into "true" or "false".
			w.fail(k, path, "key %s is read as a boolean; quote it: %q", k.Value, k.Value)
			continue
		}
		seen[k.Value] = k.Line
		w.lines[join(path, k.Value)] = w.doc.Line + k.Line - 1
		fn(k.Value, k, v)
	}
}

func (w *walker) checkStruct(n *yamlv3.Node, t reflect.Type, path string) {
	fields := jsonFields(t)
	w.eachPair(n, path, func(key string, keyNode, value *yamlv3.Node) {
		ft, ok := fields[key]
		if !ok {
			msg := fmt.Sprintf("unknown field %q", key)
			if s := suggest(key, fields); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			w.fail(keyNode, path, "%s", msg)
			return
		}
		w.check(value, ft, join(path, key))
	})
}

var jsonFieldsCache sync.Map // reflect.Type -> map[string]reflect.Type

// jsonFields maps the JSON names of t's fields to their types the way
// encoding/json sees them, including fields of embedded structs. The walk
// asks for every mapping it checks, so the answer is kept per type.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := jsonFieldsCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	out := computeJSONFields(t)
	jsonFieldsCache.Store(t, out)
	return out
}

func computeJSONFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if (f.Anonymous && name == "") || strings.Contains(opts, "inline") {
			if ft.Kind() == reflect.Struct {
				for k, v := range computeJSONFields(ft) {
					out[k] = v
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

// suggest returns the known field closest to key when it is a plausible typo:
// the same word in another case, or at most two edits away.
func suggest(key string, fields map[string]reflect.Type) string {
	best, bestDist := "", 3
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if strings.EqualFold(name, key) {
			return name
		}
		if d := editDistance(strings.ToLower(key), strings.ToLower(name)); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func kindName(n *yamlv3.Node) string {
	switch n.Kind {
	case yamlv3.MappingNode:
		return "a mapping"
	case yamlv3.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("%s %q", tagName(n.ShortTag()), n.Value)
	}
}

func tagName(tag string) string {
	switch tag {
	case "!!int":
		return "integer"
	case "!!float":
		return "number"
	case "!!bool":
		return "boolean"
	case "!!str":
		return "string"
	case "!!timestamp":
		return "timestamp"
	}
	return strings.TrimPrefix(tag, "!!")
}
