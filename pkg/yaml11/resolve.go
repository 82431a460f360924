package yaml11

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind is what a plain scalar resolves to.
type Kind uint8

const (
	String Kind = iota
	Null
	Bool
	Int   // fits int64
	Uint  // above math.MaxInt64
	Float // finite
	// Timestamp is a plain scalar yaml.v2 reads as a time. Decoded into
	// interface{} it stays the original text, but it is quoted on output.
	Timestamp
	// Special is .inf or .nan, which JSON cannot hold.
	Special
)

// Scalar is a resolved plain scalar.
type Scalar struct {
	Kind  Kind
	Bool  bool
	Int   int64
	Uint  uint64
	Float float64
}

// words are the plain scalars yaml.v2 looks up in its resolve table
// rather than parsing.
var words = map[string]Scalar{
	"y": {Kind: Bool, Bool: true}, "Y": {Kind: Bool, Bool: true}, "yes": {Kind: Bool, Bool: true}, "Yes": {Kind: Bool, Bool: true}, "YES": {Kind: Bool, Bool: true},
	"true": {Kind: Bool, Bool: true}, "True": {Kind: Bool, Bool: true}, "TRUE": {Kind: Bool, Bool: true},
	"on": {Kind: Bool, Bool: true}, "On": {Kind: Bool, Bool: true}, "ON": {Kind: Bool, Bool: true},
	"n": {Kind: Bool}, "N": {Kind: Bool}, "no": {Kind: Bool}, "No": {Kind: Bool}, "NO": {Kind: Bool},
	"false": {Kind: Bool}, "False": {Kind: Bool}, "FALSE": {Kind: Bool},
	"off": {Kind: Bool}, "Off": {Kind: Bool}, "OFF": {Kind: Bool},
	"": {Kind: Null}, "~": {Kind: Null}, "null": {Kind: Null}, "Null": {Kind: Null}, "NULL": {Kind: Null},
	".nan": {Kind: Special}, ".NaN": {Kind: Special}, ".NAN": {Kind: Special},
	".inf": {Kind: Special}, ".Inf": {Kind: Special}, ".INF": {Kind: Special},
	"+.inf": {Kind: Special}, "+.Inf": {Kind: Special}, "+.INF": {Kind: Special},
	"-.inf": {Kind: Special}, "-.Inf": {Kind: Special}, "-.INF": {Kind: Special},
}

// hints is yaml.v2's resolveTable: the first byte says whether a plain
// scalar can be anything but a string.
var hints = func() (t [256]byte) {
	t['+'], t['-'] = 'S', 'S'
	for c := '0'; c <= '9'; c++ {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M'
	}
	t['.'] = '.'
	return t
}()

// Resolve returns what yaml.v2 reads the untagged plain scalar s as: its
// resolve function (go.yaml.in/yaml/v2 resolve.go), step for step.
func Resolve(s string) Scalar {
	hint := byte('N')
	if s != "" {
		hint = hints[s[0]]
	}
	if hint == 0 {
		return Scalar{}
	}
	if v, ok := words[s]; ok {
		return v
	}
	switch hint {
	case '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return floatScalar(f)
		}
	case 'D', 'S':
		if isTimestamp(s) {
			return Scalar{Kind: Timestamp}
		}
		if !numberChars(s) {
			return Scalar{} // "512Mi": no parse below can succeed
		}
		plain := strings.ReplaceAll(s, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return Scalar{Kind: Int, Int: i}
		}
		if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return Scalar{Kind: Uint, Uint: u}
		}
		if isYAMLStyleFloat(plain) {
			if f, err := strconv.ParseFloat(plain, 64); err == nil {
				return floatScalar(f)
			}
		}
		if rest, ok := strings.CutPrefix(plain, "0b"); ok {
			if i, err := strconv.ParseInt(rest, 2, 64); err == nil {
				return Scalar{Kind: Int, Int: i}
			}
			if u, err := strconv.ParseUint(rest, 2, 64); err == nil {
				return Scalar{Kind: Uint, Uint: u}
			}
		} else if rest, ok := strings.CutPrefix(plain, "-0b"); ok {
			if i, err := strconv.ParseInt("-"+rest, 2, 64); err == nil {
				return Scalar{Kind: Int, Int: i}
			}
		}
	}
	return Scalar{}
}

// numberChars reports whether s holds only characters that the parses in
// Resolve accept: digits, signs, '_', '.', exponents and the base prefixes
// with hexadecimal digits. It saves their failing (and allocating) attempts
// on the many strings that start with a digit.
func numberChars(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f', c >= 'A' && c <= 'F':
		case c == '+', c == '-', c == '_', c == '.', c == 'x', c == 'X', c == 'o', c == 'O':
		default:
			return false
		}
	}
	return true
}

func floatScalar(f float64) Scalar {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return Scalar{Kind: Special}
	}
	return Scalar{Kind: Float, Float: f}
}

// timestampFormats are yaml.v2's allowedTimestampFormats.
var timestampFormats = []string{
	"2006-1-2T15:4:5.999999999Z07:00",
	"2006-1-2t15:4:5.999999999Z07:00",
	"2006-1-2 15:4:5.999999999",
	"2006-1-2",
}

// isTimestamp is yaml.v2's parseTimestamp, without the time.
func isTimestamp(s string) bool {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c < '0' || c > '9' {
			break
		}
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, format := range timestampFormats {
		if _, err := time.Parse(format, s); err == nil {
			return true
		}
	}
	return false
}

// isYAMLStyleFloat matches yaml.v2's yamlStyleFloat,
// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$, without a regexp:
// it runs for every plain scalar that starts with a digit ("512Mi").
func isYAMLStyleFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i - start
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// JSONNumber is the text json.Marshal writes for a number s resolved to
// (Int, Uint or Float): sigs.k8s.io/yaml converts YAML to JSON with it.
func (s Scalar) JSONNumber() string {
	switch s.Kind {
	case Int:
		return strconv.FormatInt(s.Int, 10)
	case Uint:
		return strconv.FormatUint(s.Uint, 10)
	default:
		return string(AppendJSONFloat(nil, s.Float))
	}
}

// AppendJSONFloat formats a finite f as encoding/json does (ES6 number to
// string: %f-like unless the exponent is small or large, and "e-07"
// shortened to "e-7").
func AppendJSONFloat(b []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}
