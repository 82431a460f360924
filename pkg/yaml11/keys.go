package yaml11

import (
	"slices"
	"unicode"
	"unicode/utf8"
)

// KeyLess is the order in which yaml.v2 writes the string keys of a map
// (keyList.Less in go.yaml.in/yaml/v2 sorter.go): rune by rune, non-letters
// before letters, and runs of digits compared as numbers, so "a2" comes
// before "a10".
func KeyLess(a, b string) bool {
	if isASCII(a) && isASCII(b) {
		return keyLess(asciiRunes(a), asciiRunes(b))
	}
	return keyLess(runes([]rune(a)), runes([]rune(b)))
}

// runeSeq lets keyLess index ASCII strings without converting them.
type runeSeq interface {
	len() int
	at(i int) rune
}

type asciiRunes string

func (s asciiRunes) len() int      { return len(s) }
func (s asciiRunes) at(i int) rune { return rune(s[i]) }

type runes []rune

func (s runes) len() int      { return len(s) }
func (s runes) at(i int) rune { return s[i] }

func keyLess[S runeSeq](a, b S) bool {
	for i := 0; i < a.len() && i < b.len(); i++ {
		if a.at(i) == b.at(i) {
			continue
		}
		al := unicode.IsLetter(a.at(i))
		bl := unicode.IsLetter(b.at(i))
		if al && bl {
			return a.at(i) < b.at(i)
		}
		if al || bl {
			return bl
		}
		var ai, bi int
		var an, bn int64
		if a.at(i) == '0' || b.at(i) == '0' {
			for j := i - 1; j >= 0 && unicode.IsDigit(a.at(j)); j-- {
				if a.at(j) != '0' {
					an = 1
					bn = 1
					break
				}
			}
		}
		for ai = i; ai < a.len() && unicode.IsDigit(a.at(ai)); ai++ {
			an = an*10 + int64(a.at(ai)-'0')
		}
		for bi = i; bi < b.len() && unicode.IsDigit(b.at(bi)); bi++ {
			bn = bn*10 + int64(b.at(bi)-'0')
		}
		if an != bn {
			return an < bn
		}
		if ai != bi {
			return ai < bi
		}
		return a.at(i) < b.at(i)
	}
	return a.len() < b.len()
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// sortKeys sorts keys as yaml.v2 does and reports whether that order is
// the only one. KeyLess is not transitive on every set of keys ("a1a" <
// "a9" < "a10" < "a1a"); on such a set, yaml.v2's result depends on the
// order Go's map iteration happens to give it, so it cannot be reproduced.
// Without digits KeyLess is a lexicographic order and needs no check.
func sortKeys(keys []string) bool {
	if plainASCIIKeys(keys) {
		slices.SortFunc(keys, compareASCIIKeys)
		return true
	}
	slices.SortFunc(keys, func(a, b string) int {
		switch {
		case KeyLess(a, b):
			return -1
		case KeyLess(b, a):
			return 1
		}
		return 0
	})
	digits := false
	for _, k := range keys {
		for _, r := range k {
			if unicode.IsDigit(r) {
				digits = true
				break
			}
		}
	}
	if !digits {
		return true
	}
	for i := range keys {
		for j := i + 1; j < len(keys); j++ {
			if !KeyLess(keys[i], keys[j]) || KeyLess(keys[j], keys[i]) {
				return false
			}
		}
	}
	return true
}

// plainASCIIKeys reports whether every key is ASCII without digits, the
// usual case, where KeyLess is compareASCIIKeys.
func plainASCIIKeys(keys []string) bool {
	for _, k := range keys {
		for i := 0; i < len(k); i++ {
			if c := k[i]; c >= utf8.RuneSelf || c >= '0' && c <= '9' {
				return false
			}
		}
	}
	return true
}

// compareASCIIKeys is KeyLess as a comparison, for ASCII keys without
// digits: byte by byte, non-letters before letters.
func compareASCIIKeys(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if ra, rb := asciiRank(a[i]), asciiRank(b[i]); ra != rb {
			return ra - rb
		}
	}
	return len(a) - len(b)
}

func asciiRank(c byte) int {
	if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
		return int(c) + 256
	}
	return int(c)
}
