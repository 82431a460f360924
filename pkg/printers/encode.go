package printers

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/yaml11"
)

// Member objects are written by the thousand, and encoding them is most of
// "fedctl render". The encoders here write exactly the bytes of
// sigs.k8s.io/yaml.Marshal and encoding/json.Marshal, which stay the
// definition of the output, several times faster for the JSON-like maps
// render produces, and call those libraries for anything else.

// appendYAML appends obj as sigs.k8s.io/yaml.Marshal writes it. s, when
// not nil, knows the objects written more than once.
func appendYAML(dst []byte, obj map[string]any, s *shared) ([]byte, error) {
	enc, p, isShared := s.lookup(obj, 0)
	if enc != nil {
		s.done(p, enc)
		return append(dst, enc...), nil
	}
	start := len(dst)
	out, ok := yaml11.AppendMarshal(dst, obj)
	if !ok {
		data, err := yaml.Marshal(obj)
		if err != nil {
			return dst, err
		}
		out = append(dst, data...)
	}
	if isShared {
		s.done(p, out[start:])
	}
	return out, nil
}

// appendJSON appends obj as encoding/json.Marshal writes it. s, when not
// nil, knows the maps written more than once.
func appendJSON(dst []byte, obj map[string]any, s *shared) ([]byte, error) {
	e := jsonEncoder{buf: dst, shared: s}
	if e.value(obj, 0) {
		return e.buf, nil
	}
	data, err := json.Marshal(obj)
	if err != nil {
		return dst, err
	}
	return append(dst, data...), nil
}

// jsonEncoder writes JSON-like values (map[string]any, []any, string,
// bool, int64, float64, nil) as encoding/json does: map keys sorted, HTML
// characters escaped. value reports false for anything else, and for
// floats json.Marshal refuses.
type jsonEncoder struct {
	buf    []byte
	keys   []string // scratch for sorting, shared by all levels
	shared *shared
}

func (e *jsonEncoder) value(v any, depth int) bool {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case string:
		e.buf = appendJSONString(e.buf, v)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int64:
		e.buf = strconv.AppendInt(e.buf, v, 10)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return false
		}
		e.buf = yaml11.AppendJSONFloat(e.buf, v)
	case map[string]any:
		if v == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		enc, p, isShared := e.shared.lookup(v, depth)
		if enc != nil {
			e.buf = append(e.buf, enc...)
			e.shared.done(p, enc)
			return true
		}
		from := len(e.buf)
		start := len(e.keys)
		for k := range v {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[start:]
		slices.Sort(keys)
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = appendJSONString(e.buf, k)
			e.buf = append(e.buf, ':')
			if !e.value(v[k], depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, '}')
		e.keys = e.keys[:start]
		if isShared {
			e.shared.done(p, e.buf[from:])
		}
	case []any:
		if v == nil {
			e.buf = append(e.buf, "null"...)
			return true
		}
		e.buf = append(e.buf, '[')
		for i, x := range v {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if !e.value(x, depth+1) {
				return false
			}
		}
		e.buf = append(e.buf, ']')
	default:
		return false
	}
	return true
}

// jsonSafe are the ASCII characters encoding/json writes as they are, with
// HTML escaping on: not controls, '"', '\\', '<', '>' or '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune("\"\\<>&", rune(c))
	}
	return t
}()

const lowerHex = "0123456789abcdef"

// appendJSONString is encoding/json's appendString with escapeHTML.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', lowerHex[b>>4], lowerHex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', lowerHex[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
