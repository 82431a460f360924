package yaml11

import (
	"math"
	"regexp"
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
	st := doubleQuotedStyle
	switch {
	case strings.Contains(s, "\n"):
		st = literalStyle
	case Resolve(s).Kind == String && !isBase60Float(s):
		st = plainStyle
	}
	e.scalar(s, st, simpleKey)
	return true
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

// base60Float is yaml.v2's: such strings are quoted for YAML 1.1 readers.
var base60Float = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

func isBase60Float(s string) bool {
	if s == "" {
		return false
	}
	c := s[0]
	if !(c == '+' || c == '-' || c >= '0' && c <= '9') || strings.IndexByte(s, ':') < 0 {
		return false
	}
	return base60Float.MatchString(s)
}

// analysis is yaml_emitter_analyze_scalar's result.
type analysis struct {
	multiline           bool
	blockPlainAllowed   bool
	singleQuotedAllowed bool
	blockAllowed        bool
}

// analyze is yaml_emitter_analyze_scalar with the emitter's unicode
// setting on, as yaml.v2 sets it.
func analyze(value string) analysis {
	if value == "" {
		return analysis{blockPlainAllowed: true, singleQuotedAllowed: true}
	}
	if a, ok := analyzePrintableASCII(value); ok {
		return a
	}
	var blockIndicators, lineBreaks, specialCharacters bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	var previousSpace, previousBreak bool

	if strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...") {
		blockIndicators = true
	}
	precededByWhitespace := true
	for i, w := 0, 0; i < len(value); i += w {
		w = width(value[i])
		followedByWhitespace := i+w >= len(value) || isBlank(value, i+w)
		if i == 0 {
			switch value[i] {
			case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
				blockIndicators = true
			case '?', ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '-':
				if followedByWhitespace {
					blockIndicators = true
				}
			}
		} else {
			switch value[i] {
			case ':':
				if followedByWhitespace {
					blockIndicators = true
				}
			case '#':
				if precededByWhitespace {
					blockIndicators = true
				}
			}
		}
		if !isPrintable(value, i) {
			specialCharacters = true
		}
		switch {
		case value[i] == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i+w == len(value) {
				trailingSpace = true
			}
			if previousBreak {
				breakSpace = true
			}
			previousSpace, previousBreak = true, false
		case isBreak(value, i):
			lineBreaks = true
			if i == 0 {
				leadingBreak = true
			}
			if i+w == len(value) {
				trailingBreak = true
			}
			if previousSpace {
				spaceBreak = true
			}
			previousSpace, previousBreak = false, true
		default:
			previousSpace, previousBreak = false, false
		}
		precededByWhitespace = isBlankz(value, i)
	}
	a := analysis{multiline: lineBreaks, blockPlainAllowed: true, singleQuotedAllowed: true, blockAllowed: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.blockPlainAllowed = false
	}
	if trailingSpace {
		a.blockAllowed = false
	}
	if breakSpace {
		a.blockPlainAllowed = false
		a.singleQuotedAllowed = false
	}
	if spaceBreak || specialCharacters {
		a.blockPlainAllowed = false
		a.singleQuotedAllowed = false
		a.blockAllowed = false
	}
	if lineBreaks || blockIndicators {
		a.blockPlainAllowed = false
	}
	return a
}

// analyzePrintableASCII is analyze for the common value of printable ASCII
// characters only (' ' to '~'): no breaks, nothing special, so only the
// indicators and the leading and trailing spaces matter. It reports false
// for other values.
func analyzePrintableASCII(value string) (analysis, bool) {
	indicators := strings.HasPrefix(value, "---") || strings.HasPrefix(value, "...")
	for i := 0; i < len(value); i++ {
		c := value[i]
		if c < 0x20 || c > 0x7E {
			return analysis{}, false
		}
		followedByBlank := i+1 == len(value) || value[i+1] == ' '
		switch c {
		case '#':
			indicators = indicators || i == 0 || value[i-1] == ' '
		case ':':
			indicators = indicators || followedByBlank
		case '?', '-':
			indicators = indicators || i == 0 && followedByBlank
		case ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
			indicators = indicators || i == 0
		}
	}
	edgeSpace := value[0] == ' ' || value[len(value)-1] == ' '
	return analysis{
		blockPlainAllowed:   !indicators && !edgeSpace,
		singleQuotedAllowed: true,
		blockAllowed:        value[len(value)-1] != ' ',
	}, true
}

// The character classes of go.yaml.in/yaml/v2 yamlprivateh.go, on strings
// of valid UTF-8.

func width(b byte) int {
	switch {
	case b&0x80 == 0x00:
		return 1
	case b&0xE0 == 0xC0:
		return 2
	case b&0xF0 == 0xE0:
		return 3
	case b&0xF8 == 0xF0:
		return 4
	}
	return 0
}

func isPrintable(b string, i int) bool {
	return b[i] == 0x0A ||
		b[i] >= 0x20 && b[i] <= 0x7E ||
		b[i] == 0xC2 && b[i+1] >= 0xA0 ||
		b[i] > 0xC2 && b[i] < 0xED ||
		b[i] == 0xED && b[i+1] < 0xA0 ||
		b[i] == 0xEE ||
		b[i] == 0xEF && !(b[i+1] == 0xBB && b[i+2] == 0xBF) && !(b[i+1] == 0xBF && (b[i+2] == 0xBE || b[i+2] == 0xBF))
}

// isBOM is yaml.v2's is_bom, which looks at the start of the value
// whatever i is: every character of a value that starts with a BOM is
// escaped in double quotes.
func isBOM(b string, _ int) bool {
	return len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF
}

func isBlank(b string, i int) bool { return b[i] == ' ' || b[i] == '\t' }

func isBreak(b string, i int) bool {
	return b[i] == '\r' || b[i] == '\n' ||
		b[i] == 0xC2 && b[i+1] == 0x85 ||
		b[i] == 0xE2 && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9)
}

func isBlankz(b string, i int) bool {
	return isBlank(b, i) || isBreak(b, i) || b[i] == 0
}

// asciiWidth returns the columns value takes when it is printable ASCII
// (' ' to '~'), one per byte, and false otherwise.
func asciiWidth(value string) (int, bool) {
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 || c > 0x7E {
			return 0, false
		}
	}
	return len(value), true
}

func hasBreak(s string) bool {
	for i := 0; i < len(s); i += width(s[i]) {
		if isBreak(s, i) {
			return true
		}
	}
	return false
}

// Writing, as put, put_break, write, write_break and the
// yaml_emitter_write_* functions.

func (e *emitter) put(c byte) {
	e.buf = append(e.buf, c)
	e.column++
}

func (e *emitter) putBreak() {
	e.buf = append(e.buf, '\n')
	e.column = 0
}

// write copies the character at s[*i] and counts it as one column.
func (e *emitter) write(s string, i *int) {
	w := width(s[*i])
	e.buf = append(e.buf, s[*i:*i+w]...)
	e.column++
	*i += w
}

func (e *emitter) writeBreak(s string, i *int) {
	if s[*i] == '\n' {
		e.putBreak()
		*i++
		return
	}
	e.write(s, i)
	e.column = 0
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0 && flow:
		e.indent = bestIndent
	case e.indent < 0:
		e.indent = 0
	case !indentless:
		e.indent += bestIndent
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || e.column == indent && !e.whitespace {
		e.putBreak()
	}
	for e.column < indent {
		e.put(' ')
	}
	e.whitespace = true
	e.indention = true
}

func (e *emitter) writeIndicator(indicator string, needWhitespace, isWhitespace, isIndention bool) {
	if needWhitespace && !e.whitespace {
		e.put(' ')
	}
	for i := 0; i < len(indicator); {
		e.write(indicator, &i)
	}
	e.whitespace = isWhitespace
	e.indention = e.indention && isIndention
}

func (e *emitter) writePlain(value string, allowBreaks bool) {
	if !e.whitespace {
		e.put(' ')
	}
	if cols, ok := asciiWidth(value); ok && (!allowBreaks || e.column+cols <= bestWidth || strings.IndexByte(value, ' ') < 0) {
		// Nothing to fold or break: no space past the width limit.
		e.buf = append(e.buf, value...)
		e.column += cols
		e.whitespace = false
		e.indention = false
		return
	}
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i+1 < len(value) && value[i+1] != ' ' {
				e.writeIndent()
				i++
			} else {
				e.write(value, &i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			e.write(value, &i)
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.whitespace = false
	e.indention = false
}

func (e *emitter) writeSingleQuoted(value string, allowBreaks bool) {
	e.writeIndicator("'", true, false, false)
	spaces, breaks := false, false
	for i := 0; i < len(value); {
		switch {
		case value[i] == ' ':
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 && value[i+1] != ' ' {
				e.writeIndent()
				i++
			} else {
				e.write(value, &i)
			}
			spaces = true
		case isBreak(value, i):
			if !breaks && value[i] == '\n' {
				e.putBreak()
			}
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		default:
			if breaks {
				e.writeIndent()
			}
			if value[i] == '\'' {
				e.put('\'')
			}
			e.write(value, &i)
			e.indention = false
			spaces, breaks = false, false
		}
	}
	e.writeIndicator("'", false, false, false)
	e.whitespace = false
	e.indention = false
}

const upperHex = "0123456789ABCDEF"

func (e *emitter) writeDoubleQuoted(value string, allowBreaks bool) {
	spaces := false
	e.writeIndicator(`"`, true, false, false)
	if cols, ok := asciiWidth(value); ok && !isBOM(value, 0) && strings.IndexAny(value, `"\\`) < 0 &&
		(!allowBreaks || e.column+cols <= bestWidth || strings.IndexByte(value, ' ') < 0) {
		// Nothing to escape, fold or break.
		e.buf = append(e.buf, value...)
		e.column += cols
		e.writeIndicator(`"`, false, false, false)
		e.whitespace = false
		e.indention = false
		return
	}
	for i := 0; i < len(value); {
		if !isPrintable(value, i) || isBOM(value, i) || isBreak(value, i) || value[i] == '"' || value[i] == '\\' {
			r, w := utf8.DecodeRuneInString(value[i:])
			i += w
			e.put('\\')
			switch r {
			case 0x00:
				e.put('0')
			case 0x07:
				e.put('a')
			case 0x08:
				e.put('b')
			case 0x09:
				e.put('t')
			case 0x0A:
				e.put('n')
			case 0x0B:
				e.put('v')
			case 0x0C:
				e.put('f')
			case 0x0D:
				e.put('r')
			case 0x1B:
				e.put('e')
			case 0x22:
				e.put('"')
			case 0x5C:
				e.put('\\')
			case 0x85:
				e.put('N')
			case 0xA0:
				e.put('_')
			case 0x2028:
				e.put('L')
			case 0x2029:
				e.put('P')
			default:
				digits := 8
				switch {
				case r <= 0xFF:
					e.put('x')
					digits = 2
				case r <= 0xFFFF:
					e.put('u')
					digits = 4
				default:
					e.put('U')
				}
				for k := (digits - 1) * 4; k >= 0; k -= 4 {
					e.put(upperHex[(r>>uint(k))&0x0F])
				}
			}
			spaces = false
		} else if value[i] == ' ' {
			if allowBreaks && !spaces && e.column > bestWidth && i > 0 && i < len(value)-1 {
				e.writeIndent()
				if value[i+1] == ' ' {
					e.put('\\')
				}
				i++
			} else {
				e.write(value, &i)
			}
			spaces = true
		} else {
			e.write(value, &i)
			spaces = false
		}
	}
	e.writeIndicator(`"`, false, false, false)
	e.whitespace = false
	e.indention = false
}

func (e *emitter) writeLiteral(value string) {
	e.writeIndicator("|", true, false, false)
	// Block scalar hints: an indentation indicator when the text starts
	// with a blank or a break, then the chomping indicator.
	if value != "" && (value[0] == ' ' || isBreak(value, 0)) {
		e.writeIndicator(strconv.Itoa(bestIndent), false, false, false)
	}
	chomp := ""
	if value == "" {
		chomp = "-"
	} else {
		i := len(value) - 1
		for value[i]&0xC0 == 0x80 {
			i--
		}
		switch {
		case !isBreak(value, i):
			chomp = "-"
		case i == 0:
			chomp = "+"
		default:
			i--
			for value[i]&0xC0 == 0x80 {
				i--
			}
			if isBreak(value, i) {
				chomp = "+"
			}
		}
	}
	if chomp != "" {
		e.writeIndicator(chomp, false, false, false)
	}
	e.putBreak()
	e.indention = true
	e.whitespace = true
	breaks := true
	for i := 0; i < len(value); {
		if isBreak(value, i) {
			e.writeBreak(value, &i)
			e.indention = true
			breaks = true
		} else {
			if breaks {
				e.writeIndent()
			}
			e.write(value, &i)
			e.indention = false
			breaks = false
		}
	}
}
