package yaml11

import (
	"regexp"
	"strings"
)

// Which styles a scalar allows: yaml_emitter_analyze_scalar, and the
// base-60 floats that yaml.v2 quotes.

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
	return analyzeEach(value)
}

// analyzeEach is analyze looking at every character, for a value that is
// not empty.
func analyzeEach(value string) analysis {
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
