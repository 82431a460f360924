// Package yaml11test draws random strings from the whole space of YAML and
// JSON scalars, for the tests that hold fedctl's fast encoders and decoders
// to the libraries they shadow (pkg/yaml11, pkg/printers, pkg/manifest,
// pkg/overrides).
package yaml11test

import (
	"math/rand/v2"
	"strings"
)

// Words are whole scalars that YAML 1.1 reads as something other than a
// string (numbers in every base and form, sexagesimals, infinities, NaN,
// booleans, nulls, the merge key, timestamps), or that sit next to such a
// reading.
var Words = []string{
	"1e3", "1E+3", "-1.5e-3", "6.02e23", "1e999", "0x1F", "0X1f", "0o17", "0O17", "017", "08", "0b101", "-0b101", "1_000",
	"1:20:30", "-1:20", "190:20:30.15", "0:60", ".inf", "-.Inf", "+.INF", ".NaN", ".nan",
	"y", "Y", "yes", "No", "NO", "on", "On", "OFF", "n", "~", "null", "Null", "NULL", "true", "False", "TRUE",
	"<<", "=", "2001-12-14", "2001-12-14T21:59:43.10Z", "-0", "+1", "1.", ".5", "---", "...",
	"9223372036854775808", "18446744073709551616",
}

// alphabet holds letters, every digit, the letters of number forms
// (exponents, hex, octal, binary), the YAML indicators, quotes and blanks.
const alphabet = "abcXYZeExXoObB0123456789+-_.:#'\"!&*?,[]{}|>%@`\\/=~<> \t\n"

// nonASCII are characters past ASCII that yaml.v2 prints, escapes or reads
// as a break: accents, CJK, an astral emoji, NBSP, the BOM, U+2028, U+2029,
// a zero-width space, a private-use character.
var nonASCII = []string{"é", "日", "😀", "\u00a0", "\ufeff", "\u2028", "\u2029", "\u200b", "\ue000", "\u00ff", "\u0100"}

// refused are what sigs.k8s.io/yaml does not carry through unchanged:
// invalid UTF-8, DEL, NEL and other C1 controls, U+FFFE, U+FFFF.
var refused = []string{"\xff", "\xc3", "\xed\xa0\x80", "\x7f", "\u0085", "\u009f", "\ufffe", "\uffff"}

// Text returns up to maxLen pieces drawn from the alphabet, every C0
// control character (\r among them), non-ASCII characters and whole Words,
// sometimes with a leading or trailing space. With refusable it also draws
// invalid UTF-8, DEL, C1 controls (NEL among them), U+FFFE and U+FFFF.
func Text(r *rand.Rand, maxLen int, refusable bool) string {
	var b strings.Builder
	if r.IntN(10) == 0 {
		b.WriteString(" ")
	}
	for range r.IntN(maxLen + 1) {
		switch n := r.IntN(100); {
		case n < 4:
			b.WriteString(Words[r.IntN(len(Words))])
		case n < 7:
			b.WriteByte(byte(r.IntN(0x20)))
		case n < 12:
			b.WriteString(nonASCII[r.IntN(len(nonASCII))])
		case n < 13 && refusable:
			b.WriteString(refused[r.IntN(len(refused))])
		default:
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
	}
	if r.IntN(10) == 0 {
		b.WriteString(" ")
	}
	return b.String()
}

// Long returns text past 1 KiB: short Texts between single spaces, so that
// its lines run far past an emitter's width and can be folded.
func Long(r *rand.Rand) string {
	var b strings.Builder
	for b.Len() < 1100+r.IntN(1000) {
		b.WriteString(Text(r, 12, false))
		b.WriteByte(' ')
	}
	return b.String()
}
