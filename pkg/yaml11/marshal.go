package yaml11

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// sigs.k8s.io/yaml.Marshal encodes its argument to JSON, parses the JSON
// with yaml.v2 and emits the result with yaml.v2's emitter (a port of
// libyaml's) at indent 2 and width 80. For the JSON-like values fedctl
// renders, each step is predictable: a string comes back unchanged (unless
// JSON or yaml.v2's reader would alter or refuse it), a number comes back as
// yaml.v2 resolves its JSON text, maps come back with their keys in yaml.v2's
// order. AppendMarshal does those steps directly and emits with the same
// rules, ported from go.yaml.in/yaml/v2 emitterc.go for the events yaml.v2
// produces for such values: block mappings and sequences, "{}" and "[]" for
// empty ones, and plain, single-quoted, double-quoted and literal scalars.
// That makes writing an object some twenty times faster, which is most of
// "fedctl render".

const (
	bestIndent = 2
	bestWidth  = 80
	// maxDepth bounds recursion; deeper values take the slow path.
	maxDepth = 1000
	// maxSimpleKey is libyaml's limit for a key written as "key:"; a
	// longer one becomes a complex "? key" entry, which is not reproduced.
	maxSimpleKey = 128
)

// AppendMarshal appends obj as sigs.k8s.io/yaml.Marshal writes it and
// reports true. It reports false, with dst's content unchanged, when obj
// holds something it does not reproduce exactly: a value other than
// map[string]any, []any, string, bool, int64, float64 or nil; a float that
// is not finite; a string that is not valid UTF-8 or holds characters that
// yaml.v2 refuses or reads as a line break (DEL, C1 controls, U+FFFE,
// U+FFFF); a key longer than 128 bytes or with a line break; a map whose keys
// yaml.v2 would order by chance (see sortKeys); nesting deeper than 1000.
func AppendMarshal(dst []byte, obj map[string]any) ([]byte, bool) {
	e := emitter{buf: dst, indent: -1, whitespace: true, indention: true}
	if !e.node(obj, 0, false, false, false) {
		return dst, false
	}
	e.writeIndent() // document end
	return e.buf, true
}

// emitter is the part of yaml_emitter_t that these events use.
type emitter struct {
	buf        []byte
	column     int
	indent     int
	indents    []int
	whitespace bool // the last character written was a blank
	indention  bool // only indentation has been written on this line
	keys       []string
}

func (e *emitter) node(v any, depth int, sequence, mapping, simpleKey bool) bool {
	if depth > maxDepth {
		return false
	}
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return e.plain("null", simpleKey)
		}
		return e.mapping(v, depth)
	case []any:
		if v == nil {
			return e.plain("null", simpleKey)
		}
		return e.sequence(v, depth, mapping)
	case string:
		return e.str(v, simpleKey)
	case bool:
		return e.plain(strconv.FormatBool(v), simpleKey)
	case int64:
		return e.plain(strconv.FormatInt(v, 10), simpleKey)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false // json.Marshal fails
		}
		// The JSON text of v, resolved by yaml.v2 and written back:
		// 3.0 is "3", 1e20 is "1e+20", 1.5e19 is "15000000000000000000".
		s := Resolve(string(AppendJSONFloat(nil, v)))
		switch s.Kind {
		case Int:
			return e.plain(strconv.FormatInt(s.Int, 10), simpleKey)
		case Uint:
			return e.plain(strconv.FormatUint(s.Uint, 10), simpleKey)
		case Float:
			return e.plain(strconv.FormatFloat(s.Float, 'g', -1, 64), simpleKey)
		}
		return false
	case nil:
		return e.plain("null", simpleKey)
	}
	return false
}

func (e *emitter) mapping(m map[string]any, depth int) bool {
	if len(m) == 0 {
		e.writeIndicator("{", true, true, false)
		e.writeIndicator("}", false, false, false)
		return true
	}
	start := len(e.keys)
	defer func() { e.keys = e.keys[:start] }()
	for k := range m {
		// A key too long or with a line break would be written as a
		// complex "? key" entry.
		if !roundTrips(k) || len(k) > maxSimpleKey || hasBreak(k) {
			return false
		}
		e.keys = append(e.keys, k)
	}
	keys := e.keys[start:]
	if !sortKeys(keys) {
		return false
	}
	e.increaseIndent(false, false)
	for _, k := range keys {
		e.writeIndent()
		if !e.str(k, true) {
			return false
		}
		e.writeIndicator(":", false, false, false)
		if !e.node(m[k], depth+1, false, true, false) {
			return false
		}
	}
	e.popIndent()
	return true
}

func (e *emitter) sequence(s []any, depth int, mapping bool) bool {
	if len(s) == 0 {
		e.writeIndicator("[", true, true, false)
		e.writeIndicator("]", false, false, false)
		return true
	}
	// A sequence that is a mapping's value is not indented further.
	e.increaseIndent(false, mapping && !e.indention)
	for _, item := range s {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		if !e.node(item, depth+1, true, false, false) {
			return false
		}
	}
	e.popIndent()
	return true
}

// Scalar styles, as yaml_scalar_style_t.
type style uint8

const (
	plainStyle style = iota
	singleQuotedStyle
	doubleQuotedStyle
	literalStyle
)

// plain writes a number, boolean or null.
func (e *emitter) plain(s string, simpleKey bool) bool {
	e.scalar(s, plainStyle, simpleKey)
	return true
}

// str writes a string: encoder.stringv picks a style, the emitter may
// overrule it.
func (e *emitter) str(s string, simpleKey bool) bool {
	if !roundTrips(s) {
		return false
	}
	e.scalar(s, stringStyle(s), simpleKey)
	return true
}

// stringStyle is the style encoder.stringv asks for: literal for text with
// a line feed, plain when yaml.v2 would read the plain text back as the
// same string, double-quoted otherwise.
func stringStyle(s string) style {
	switch {
	case strings.Contains(s, "\n"):
		return literalStyle
	case Resolve(s).Kind == String && !isBase60Float(s):
		return plainStyle
	}
	return doubleQuotedStyle
}

// roundTrips reports whether s survives sigs.k8s.io/yaml's JSON detour
// unchanged: json.Marshal replaces invalid UTF-8, and yaml.v2's reader
// refuses DEL, C1 controls, U+FFFE and U+FFFF and folds a raw NEL (json
// escapes the other controls, U+2028 and U+2029).
func roundTrips(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == 0x7F {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r >= 0x80 && r <= 0x9F || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += size
	}
	return true
}

// scalar is yaml_emitter_emit_scalar for an untagged scalar outside flow
// collections: select the style, then write it one indentation level in.
func (e *emitter) scalar(value string, st style, simpleKey bool) {
	st = selectStyle(value, st, simpleKey)
	e.increaseIndent(true, false)
	switch st {
	case plainStyle:
		e.writePlain(value, !simpleKey)
	case singleQuotedStyle:
		e.writeSingleQuoted(value, !simpleKey)
	case doubleQuotedStyle:
		e.writeDoubleQuoted(value, !simpleKey)
	case literalStyle:
		e.writeLiteral(value)
	}
	e.popIndent()
}

// selectStyle is yaml_emitter_select_scalar_style: the style the emitter
// writes value in when st is asked for, given what the value allows.
func selectStyle(value string, st style, simpleKey bool) style {
	a := analyze(value)
	if simpleKey && a.multiline {
		st = doubleQuotedStyle
	}
	if st == plainStyle {
		if !a.blockPlainAllowed || value == "" && simpleKey {
			st = singleQuotedStyle
		}
	}
	if st == singleQuotedStyle && !a.singleQuotedAllowed {
		st = doubleQuotedStyle
	}
	if st == literalStyle && (!a.blockAllowed || simpleKey) {
		st = doubleQuotedStyle
	}
	return st
}
