package yaml11

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv2 "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/fedctl/fedctl/pkg/yaml11/yaml11test"
)

// The emitter has fast paths for the common printable-ASCII case beside the
// general code ported from yaml.v2. The end-to-end comparisons in
// yaml11_test.go would hide a fast path that is never taken or that is
// wrong only where the general code is never reached; these tests hold each
// fast path to its general path, or to yaml.v2 itself, directly.

// scalarSample is the tricky strings, the whole scalar words, and random
// text of every length, for the tests below.
func scalarSample(seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, seed+1))
	out := slices.Concat(trickyStrings, yaml11test.Words)
	for range 4000 {
		out = append(out, yaml11test.Text(r, []int{4, 20, 120, 300}[r.IntN(4)], false))
		if r.IntN(50) == 0 {
			out = append(out, yaml11test.Long(r))
		}
	}
	return out
}

// printableASCII keeps the bytes of s from ' ' to '~', the fast paths'
// domain.
func printableASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x20 && s[i] <= 0x7E {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func TestAnalyzePrintableASCIIIsAnalyzeEach(t *testing.T) {
	t.Parallel()
	taken := 0
	for _, s := range scalarSample(21) {
		for _, v := range []string{s, printableASCII(s)} {
			if v == "" {
				continue
			}
			fast, ok := analyzePrintableASCII(v)
			if !ok {
				continue
			}
			taken++
			require.Equal(t, analyzeEach(v), fast, "%q", v)
		}
	}
	assert.Greater(t, taken, 3000, "the fast path must be taken")
}

// TestAppendVerbatimIsCharacterByCharacter writes each value at several
// columns with and without folding, through the fast path and through the
// general writer, from the same emitter state.
func TestAppendVerbatimIsCharacterByCharacter(t *testing.T) {
	t.Parallel()
	taken := 0
	for _, s := range scalarSample(22) {
		for _, v := range []string{s, printableASCII(s)} {
			for _, column := range []int{0, 2, 40, 79, 80, 81, 120} {
				for _, allowBreaks := range []bool{true, false} {
					fast := emitter{buf: []byte("x"), column: column, indent: 2}
					if !fast.appendVerbatim(v, allowBreaks) {
						continue
					}
					taken++
					plain := emitter{buf: []byte("x"), column: column, indent: 2}
					plain.writePlainFolded(v, allowBreaks)
					require.Equal(t, string(plain.buf), string(fast.buf), "plain %q at column %d", v, column)
					require.Equal(t, plain.column, fast.column, "plain %q at column %d", v, column)
					if strings.ContainsAny(v, `"\`) {
						continue // writeDoubleQuoted escapes these without asking appendVerbatim
					}
					quoted := emitter{buf: []byte("x"), column: column, indent: 2}
					quoted.writeDoubleQuotedEscaped(v, allowBreaks)
					require.Equal(t, string(quoted.buf), string(fast.buf), "double-quoted %q at column %d", v, column)
					require.Equal(t, quoted.column, fast.column, "double-quoted %q at column %d", v, column)
				}
			}
		}
	}
	assert.Greater(t, taken, 10000, "the fast path must be taken")
}

// TestStyleIsYAMLv2s holds the decision "can this string be plain, or how
// is it quoted" (stringStyle, then selectStyle over analyze) to the style
// yaml.v2 writes the same string in, as a value and as a key.
func TestStyleIsYAMLv2s(t *testing.T) {
	t.Parallel()
	styles := map[style]int{}
	for _, s := range scalarSample(23) {
		if !roundTrips(s) {
			continue
		}
		out, err := yamlv2.Marshal(map[string]string{"k": s})
		require.NoError(t, err)
		want := writtenStyle(strings.TrimPrefix(string(out), "k:"))
		got := selectStyle(s, stringStyle(s), false)
		styles[got]++
		require.Equal(t, want, got, "%q as a value: yaml.v2 wrote %q", s, out)

		if len(s) > maxSimpleKey || hasBreak(s) {
			continue // a complex key, refused
		}
		out, err = yamlv2.Marshal(map[string]string{s: "v"})
		require.NoError(t, err)
		want = writtenStyle(string(out))
		got = selectStyle(s, stringStyle(s), true)
		require.Equal(t, want, got, "%q as a key: yaml.v2 wrote %q", s, out)
	}
	for _, st := range []style{plainStyle, singleQuotedStyle, doubleQuotedStyle, literalStyle} {
		assert.Greater(t, styles[st], 100, "style %d must be chosen often", st)
	}
}

// writtenStyle reads the style of the scalar at the start of text, after
// blanks.
func writtenStyle(text string) style {
	switch strings.TrimLeft(text, " ")[0] {
	case '\'':
		return singleQuotedStyle
	case '"':
		return doubleQuotedStyle
	case '|':
		return literalStyle
	}
	return plainStyle
}

// TestKeyLessASCIIIsRunes holds KeyLess's ASCII path, which indexes bytes,
// to its path over runes.
func TestKeyLessASCIIIsRunes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(24, 25))
	const alphabet = "aAzZ0129-._/ ~"
	key := func() string {
		var b strings.Builder
		for range r.IntN(7) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 20000 {
		a, b := key(), key()
		assert.Equal(t, keyLess(runes([]rune(a)), runes([]rune(b))), keyLess(asciiRunes(a), asciiRunes(b)), "%q %q", a, b)
	}
}

// TestAppendJSONFloatIsJSONMarshal holds the float formatting that both the
// YAML emitter and the JSON encoder use to encoding/json, on random bit
// patterns (every exponent) and on the edges of its two formats.
func TestAppendJSONFloatIsJSONMarshal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(26, 27))
	floats := []float64{0, math.Copysign(0, -1), 1e-6, 9.999999999999999e-7, 1e-7, 1e21, 9.999999999999998e20, 1e20, math.MaxFloat64, math.SmallestNonzeroFloat64, 5e-324, 1.5e300, 123456789.125}
	for range 50000 {
		floats = append(floats, math.Float64frombits(r.Uint64()), r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, f := range floats {
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		want, err := json.Marshal(f)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendJSONFloat(nil, f)), "%v", f)
	}
}
