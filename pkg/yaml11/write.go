package yaml11

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

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
	if !e.appendVerbatim(value, allowBreaks) {
		e.writePlainFolded(value, allowBreaks)
	}
	e.whitespace = false
	e.indention = false
}

// appendVerbatim is the fast path of writePlain and writeDoubleQuoted: it
// appends value as it is, and reports true, when writing it character by
// character would do the same because it is printable ASCII (' ' to '~')
// with no space past the width limit where the line could be folded.
func (e *emitter) appendVerbatim(value string, allowBreaks bool) bool {
	cols, ok := asciiWidth(value)
	if !ok || allowBreaks && e.column+cols > bestWidth && strings.IndexByte(value, ' ') >= 0 {
		return false
	}
	e.buf = append(e.buf, value...)
	e.column += cols
	return true
}

// writePlainFolded writes a plain scalar character by character, folding
// long lines at spaces.
func (e *emitter) writePlainFolded(value string, allowBreaks bool) {
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
	e.writeIndicator(`"`, true, false, false)
	if strings.IndexAny(value, `"\\`) >= 0 || !e.appendVerbatim(value, allowBreaks) {
		e.writeDoubleQuotedEscaped(value, allowBreaks)
	}
	e.writeIndicator(`"`, false, false, false)
	e.whitespace = false
	e.indention = false
}

// writeDoubleQuotedEscaped writes the text of a double-quoted scalar
// character by character, escaping what is not printable and folding long
// lines at spaces.
func (e *emitter) writeDoubleQuotedEscaped(value string, allowBreaks bool) {
	spaces := false
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
