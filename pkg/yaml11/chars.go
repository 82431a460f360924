package yaml11

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
