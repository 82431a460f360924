package yaml11

import (
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
	yamlv2 "sigs.k8s.io/yaml/goyaml.v2"

	"github.com/fedctl/fedctl/pkg/yaml11/yaml11test"
)

// trickyStrings need care in YAML 1.1: they read as something else when
// plain, need quotes or escapes, or are folded at 80 columns.
var trickyStrings = []string{
	"", " ", "  ", "a", "yes", "Yes", "no", "on", "off", "y", "n", "Y", "N", "true", "False", "null", "Null", "~", "<<", "=",
	"0", "-0", "1", "-1", "+1", "1.0", "1.", ".5", "-.5", "1e3", "1e+3", "1E3", "0x1F", "0o17", "017", "08", "0b101", "-0b101", "1_000",
	"9223372036854775808", "18446744073709551616", "1e999", ".inf", "-.Inf", ".nan", "NaN", "Infinity",
	"2001-12-14", "2001-12-14T21:59:43.10Z", "2002-12-14 21:59:43.1", "2001-13-45", "12:30", "1:20:30", "-1:20", "1:2", "190:20:30.15",
	"512Mi", "100m", "25%", "v1", "1.2.3", "10.0.0.1", "app.kubernetes.io/name", "nginx:1.27",
	" leading", "trailing ", "a: b", "a:b", "a :b", "key:", ":", ": a", "- a", "-a", "-", "--", "---", "--- a", "...", "....", "? a", "?a", "a ? b",
	"#", "# x", "a #b", "a#b", "!", "!a", "&a", "*a", "|", ">", "'", "\"", "%", "@", "`", "[", "]", "{", "}", ",", "a,b", "[a]", "{a: b}",
	"it's", "say \"hi\"", "back\\slash", "tab\there", "nul\x00", "bell\a", "esc\x1b", "\x01\x02",
	"line\nbreak", "line\n", "line\n\n", "\n", "\n\n", "\nlead", " \nx", "x \ny", "x\n y", "x\n\n y", "a\r\nb", "cr\rx", "trailing space \n",
	"é", "日本語", "emoji 😀", "nbsp\u00a0x", "\u00a0", "ls\u2028x", "ps\u2029x", "bom\ufeffx", "\ufeffstart", "\ufeff", "zwsp\u200bx", "\ue000private",
	"surrogate-ish \uFFFD", "\u00ff", "\u0100",
	strings.Repeat("word ", 30), strings.Repeat("x", 100), strings.Repeat("x", 79) + " y z", "a" + strings.Repeat(" ", 90) + "b",
	strings.Repeat("long line with words ", 6) + "\nsecond " + strings.Repeat("line ", 20), "\"" + strings.Repeat("quoted words ", 10) + "\"",
	strings.Repeat("yes ", 25), "'" + strings.Repeat("it's ", 20), strings.Repeat("tab\t", 30),
	"2", "3", "4", "5", "6", "7", "0x1f", "0X1F", "0O17", "0o8", "+.INF", ".NaN", "-.inf", "1:20:30.5", "0:60", "1e", "e3", "x1", "o1",
	"ON", "OFF", "On", "NO", "YES", "NULL", "nULL", "\r", "\r\n", "a\rb", "\t", "\tlead", "trail\t", "- ", "-\t", "? ", ":\t", "a\tb #c",
	"%x", "@x", "`x", "!x", "&x", "*x", "|x", ">x", "'x'", "\"x\"", "\x1f", "\x0b\x0c", "nel-free \u2029 end",
	strings.Repeat("a", 1100), strings.Repeat("0123456789 ", 100), strings.Repeat("\"q\" ", 40), strings.Repeat("é ", 60),
}

var trickyNumbers = []any{
	int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), int64(1e15),
	0.0, math.Copysign(0, -1), 1.0, -2.0, 0.5, 1.5, 3.14159, 1e6, 1e-6, 1e-7, 1e20, 1e21, 1e22, 1.5e19, 1.8446744073709552e19, 2e19,
	-1e21, 123456789.123, 1e300, 5e-324, math.MaxFloat64, float64(1 << 53), float64(1<<53 + 2), 0.1, 100.0,
}

func check(t *testing.T, obj map[string]any) bool {
	t.Helper()
	got, ok := AppendMarshal([]byte("prefix"), obj)
	require.True(t, strings.HasPrefix(string(got), "prefix"))
	if !ok {
		assert.Equal(t, "prefix", string(got), "a refusal leaves dst as it was")
		return false
	}
	want, err := yaml.Marshal(obj)
	require.NoError(t, err, "sigs.k8s.io/yaml refuses what AppendMarshal wrote: %#v", obj)
	if string(want) != strings.TrimPrefix(string(got), "prefix") {
		t.Fatalf("output differs for %#v\nsigs.k8s.io/yaml:\n%s\nAppendMarshal:\n%s", obj, want, strings.TrimPrefix(string(got), "prefix"))
	}
	return true
}

func TestAppendMarshalStrings(t *testing.T) {
	t.Parallel()
	for _, s := range trickyStrings {
		badKey := len(s) > maxSimpleKey || hasBreak(s)
		for i, obj := range placements(s) {
			refused := !check(t, obj)
			assert.Equal(t, badKey && i >= 5, refused, "%q in placement %d: only keys with breaks or over 128 bytes are refused", s, i)
		}
	}
}

// placements puts v where the emitter behaves differently: a top-level
// value, deep in mappings and sequences (indentation, folding column), a
// sequence item, a key.
func placements(v any) []map[string]any {
	out := []map[string]any{
		{"k": v},
		{"a": map[string]any{"bb": map[string]any{"ccc": v}}},
		{"list": []any{v, "x", []any{v}, map[string]any{"in": v, "z": 1.5}}},
		{"n": []any{[]any{[]any{v}}}},
		{"m": []any{map[string]any{"a": []any{map[string]any{"b": v}}}}},
	}
	if s, ok := v.(string); ok {
		out = append(out, map[string]any{s: "v"}, map[string]any{"k": map[string]any{s: []any{s}}})
	}
	return out
}

func TestAppendMarshalNumbersAndShapes(t *testing.T) {
	t.Parallel()
	for _, n := range trickyNumbers {
		for _, obj := range placements(n) {
			assert.True(t, check(t, obj), "%v", n)
		}
	}
	for _, obj := range []map[string]any{
		nil, {}, {"a": nil}, {"a": true, "b": false}, {"a": map[string]any{}}, {"a": []any{}}, {"a": []any{[]any{}, map[string]any{}}},
		{"a": map[string]any(nil)}, {"a": []any(nil)}, {"a": []any{nil, nil}},
		{"z": 1, "a": 2, "m": 3, "A": 4, "_": 5, "-": 6, "1": 7, "10": 8, "2": 9, "a10": 10, "a2": 11, "é": 12, "Z": 13},
	} {
		for k, v := range obj {
			if i, ok := v.(int); ok {
				obj[k] = int64(i)
			}
		}
		assert.True(t, check(t, obj), "%#v", obj)
	}
}

func TestAppendMarshalRefuses(t *testing.T) {
	t.Parallel()
	for _, obj := range []map[string]any{
		{"a": 1},            // an int, not an int64: left to json.Marshal
		{"a": math.Inf(1)},  // json.Marshal fails
		{"a": "\xff"},       // invalid UTF-8: json.Marshal replaces it
		{"a": "del\x7f"},    // yaml.v2's reader refuses it
		{"a": "nel\u0085x"}, // yaml.v2's reader folds it
		{strings.Repeat("k", 129): "v"},
		{"a\nb": "v"},
		{"a1a": 1.0, "a9": 1.0, "a10": 1.0}, // no order yaml.v2 is bound to
	} {
		got, ok := AppendMarshal(nil, obj)
		assert.False(t, ok, "%#v", obj)
		assert.Empty(t, got)
	}
}

// TestAppendMarshalRandom compares with sigs.k8s.io/yaml.Marshal on random
// JSON-like values built from the tricky strings and numbers and random
// text, at random depths.
func TestAppendMarshalRandom(t *testing.T) {
	t.Parallel()
	n := 3000
	if testing.Short() {
		n = 500
	}
	r := rand.New(rand.NewPCG(1, 2))
	done := 0
	for range n {
		obj := randomMap(r, 0)
		if check(t, obj) {
			done++
		}
	}
	assert.Greater(t, done, n*9/10, "the comparison must not be vacuous")
}

func randomMap(r *rand.Rand, depth int) map[string]any {
	m := map[string]any{}
	for range r.IntN(6) {
		m[randomKey(r)] = randomValue(r, depth+1)
	}
	return m
}

// keyBreaks are the line breaks yaml.v2 reads in a key; AppendMarshal
// refuses keys with them, so random keys mostly leave them out.
var keyBreaks = strings.NewReplacer("\n", "", "\r", "", "\u0085", "", "\u2028", "", "\u2029", "")

func randomKey(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		s := trickyStrings[r.IntN(len(trickyStrings))]
		if len(s) <= 128 && !hasBreak(s) {
			return s
		}
	}
	return keyBreaks.Replace(yaml11test.Text(r, 12, false))
}

func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(10)
	if depth > 5 {
		k = 4 + r.IntN(6)
	}
	switch k {
	case 0, 1:
		return randomMap(r, depth)
	case 2, 3:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomValue(r, depth+1)
		}
		return a
	case 4:
		return trickyNumbers[r.IntN(len(trickyNumbers))]
	case 5:
		return r.Int64N(1<<40) - 1<<39
	case 6:
		return []any{nil, true, false}[r.IntN(3)]
	case 7:
		return trickyStrings[r.IntN(len(trickyStrings))]
	default:
		switch r.IntN(100) {
		case 0:
			return yaml11test.Text(r, 120, true) // may be refused
		case 1, 2:
			return yaml11test.Long(r)
		}
		return yaml11test.Text(r, 120, false)
	}
}

func FuzzAppendMarshal(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s, s, 1.5)
	}
	for _, s := range yaml11test.Words {
		f.Add("k", s, 1e21)
	}
	f.Fuzz(func(t *testing.T, key, value string, num float64) {
		obj := map[string]any{
			key:    value,
			"list": []any{value, map[string]any{key: num, "v": []any{value}}},
			"deep": map[string]any{"x": map[string]any{"y": value}},
			"num":  num,
		}
		check(t, obj)
	})
}

// TestResolve compares with yaml.v2's own reading of a plain scalar, on the
// tricky strings and random text.
func TestResolve(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 12))
	scalars := slices.Clone(trickyStrings)
	for range 5000 {
		scalars = append(scalars, yaml11test.Text(r, 10, false))
	}
	compared := 0
	for _, s := range scalars {
		var m map[string]any
		if yamlv2.Unmarshal([]byte("v: "+s+"\n"), &m) != nil || hasBreak(s) || strings.ContainsAny(s, "#'\"[]{},&*!|>%@`:") || strings.TrimSpace(s) != s {
			continue // not a plain scalar as a whole
		}
		compared++
		want := m["v"]
		got := Resolve(s)
		switch got.Kind {
		case String, Timestamp:
			assert.Equal(t, s, want, "%q", s)
		case Null:
			assert.Nil(t, want, "%q", s)
		case Bool:
			assert.Equal(t, got.Bool, want, "%q", s)
		case Int:
			assert.Equal(t, fmt.Sprint(got.Int), fmt.Sprint(want), "%q", s)
		case Uint:
			assert.Equal(t, got.Uint, want, "%q", s)
		case Float:
			assert.Equal(t, got.Float, want, "%q", s)
		case Special:
			f, ok := want.(float64)
			assert.True(t, ok && (math.IsInf(f, 0) || math.IsNaN(f)), "%q", s)
		}
	}
	assert.Greater(t, compared, 1000, "the comparison must not be vacuous")
}

func TestIsYAMLStyleFloat(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)
	for _, s := range append(trickyStrings, "1e", "1e+", ".e1", "-.", "+1.e5", "1.5E-07", "--1", "1ee3", "1e3.5", "12a") {
		assert.Equal(t, re.MatchString(s), isYAMLStyleFloat(s), "%q", s)
	}
}

func TestKeyOrderIsYAMLv2s(t *testing.T) {
	t.Parallel()
	keys := []string{"b", "a", "B", "A", "_x", "-y", "1", "10", "9", "a10", "a9", "a09", "ab", "é", "z9z", "z10", "app.kubernetes.io/name", "app", "k8s.io/x", "k10s"}
	obj := map[string]any{}
	for _, k := range keys {
		obj[k] = "v"
	}
	check(t, obj)
}

func BenchmarkAppendMarshal(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	obj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": randomMap(r, 3), "metadata": map[string]any{"name": "web", "labels": map[string]any{"app": "web", "tier": "backend"}}}
	b.Run("AppendMarshal", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = AppendMarshal(buf[:0], obj)
		}
	})
	b.Run("sigs.k8s.io/yaml", func(b *testing.B) {
		for b.Loop() {
			_, _ = yaml.Marshal(obj)
		}
	})
}

func TestCompareASCIIKeysIsKeyLess(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	const alphabet = "abzABZ-._/~ !@#"
	for range 20000 {
		var a, b strings.Builder
		for range r.IntN(6) {
			a.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		for range r.IntN(6) {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		x, y := a.String(), b.String()
		c := compareASCIIKeys(x, y)
		assert.Equal(t, KeyLess(x, y), c < 0, "%q %q", x, y)
		assert.Equal(t, KeyLess(y, x), c > 0, "%q %q", x, y)
	}
}
