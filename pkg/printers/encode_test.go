package printers

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
	"github.com/fedctl/fedctl/pkg/yaml11/yaml11test"
)

var jsonStrings = []string{
	"", "plain", "<script>&</script>", "quote\" back\\slash", "ctl\x00\x01\x1f\x7f", "\b\f\n\r\t", "é日本😀", "\u2028\u2029",
	"bad\xffutf8", "\xc3", "\ufffd", "\u00a0", strings.Repeat("long ", 50),
	"\xed\xa0\x80", "\xf4\x90\x80\x80", "\u0085", "\ufeff", "\ufffe", "1e3", "0x1F", "-.Inf", "yes", "\x1b[0m", "\u007f\u0080\u009f",
}

// randomJSONString is one of jsonStrings or random text from the whole
// scalar space, invalid UTF-8 included, sometimes past 1 KiB.
func randomJSONString(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0, 1, 2:
		return jsonStrings[r.IntN(len(jsonStrings))]
	case 3:
		return yaml11test.Long(r)
	}
	return yaml11test.Text(r, 40, true)
}

func randomJSONValue(r *rand.Rand, depth int) any {
	k := r.IntN(9)
	if depth > 4 {
		k = 3 + r.IntN(6)
	}
	switch k {
	case 0, 1:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randomJSONString(r)] = randomJSONValue(r, depth+1)
		}
		return m
	case 2:
		a := make([]any, r.IntN(4))
		for i := range a {
			a[i] = randomJSONValue(r, depth+1)
		}
		return a
	case 3:
		return []any{nil, true, false, map[string]any(nil), []any(nil), map[string]any{}, []any{}}[r.IntN(7)]
	case 4:
		return r.Int64() - math.MaxInt64/2
	case 5:
		return []float64{0, math.Copysign(0, -1), 1e-7, 1e-6, 1e20, 1e21, 1.5, -2.25e-300, math.MaxFloat64, 3}[r.IntN(10)]
	case 6:
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	case 7:
		for {
			if f := math.Float64frombits(r.Uint64()); !math.IsInf(f, 0) && !math.IsNaN(f) {
				return f // any finite float; TestAppendFallsBackToTheLibraries has the others
			}
		}
	default:
		return randomJSONString(r)
	}
}

// TestAppendJSON compares with json.Marshal, which defines the output.
func TestAppendJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		obj := map[string]any{"v": randomJSONValue(r, 0), "w": randomJSONValue(r, 0)}
		want, err := json.Marshal(obj)
		require.NoError(t, err)
		got, err := appendJSON([]byte("x"), obj, nil)
		require.NoError(t, err)
		require.Equal(t, "x"+string(want), string(got))
	}
}

// TestAppendJSONStringIsJSONMarshal holds the string escaper, the inner
// loop of the encoder, to encoding/json on every kind of string.
func TestAppendJSONStringIsJSONMarshal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(9, 10))
	strs := slices.Clone(jsonStrings)
	for c := range 256 {
		strs = append(strs, string([]byte{byte(c)}), "a"+string(rune(c))+"b")
	}
	for range 20000 {
		strs = append(strs, randomJSONString(r))
	}
	for _, s := range strs {
		want, err := json.Marshal(s)
		require.NoError(t, err)
		require.Equal(t, string(want), string(appendJSONString(nil, s)), "%q", s)
	}
}

func TestAppendFallsBackToTheLibraries(t *testing.T) {
	t.Parallel()
	obj := map[string]any{"int": 1, "typed": map[string]string{"a": "b"}, "num": json.Number("1.50")}
	wantJSON, err := json.Marshal(obj)
	require.NoError(t, err)
	got, err := appendJSON(nil, obj, nil)
	require.NoError(t, err)
	assert.Equal(t, string(wantJSON), string(got))
	wantYAML, err := yaml.Marshal(obj)
	require.NoError(t, err)
	got, err = appendYAML(nil, obj, nil)
	require.NoError(t, err)
	assert.Equal(t, string(wantYAML), string(got))

	_, err = appendJSON(nil, map[string]any{"nan": math.NaN()}, nil)
	assert.Error(t, err, "what json.Marshal refuses is refused")
	_, err = appendYAML(nil, map[string]any{"nan": math.NaN()}, nil)
	assert.Error(t, err)
}

func FuzzAppendJSON(f *testing.F) {
	for i, s := range jsonStrings {
		f.Add(s, []float64{0, 1e-7, 1e21, -2.5, 1 << 53, 123456789.125}[i%6])
	}
	f.Fuzz(func(t *testing.T, s string, num float64) {
		obj := map[string]any{s: []any{s, map[string]any{"k": s, "n": num}}}
		want, err := json.Marshal(obj)
		if err != nil { // NaN or infinite
			_, err := appendJSON(nil, obj, nil)
			require.Error(t, err)
			return
		}
		got, err := appendJSON(nil, obj, nil)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}

// TestSharedObjectsAreWrittenAlike writes targets that share whole objects
// and parts of objects, as render makes them, and compares with writing
// each object on its own with the reference libraries.
func TestSharedObjectsAreWrittenAlike(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	types := typeconfig.Builtin()
	cm, ok := types.ByFederatedKind("FederatedConfigMap")
	require.True(t, ok)
	src := &federation.Object{}
	src.Kind, src.Name, src.Namespace = "FederatedConfigMap", "cfg", "shop"
	var targets []render.Target
	for range 4 {
		common := map[string]any{"data": randomJSONValue(r, 1), "meta": map[string]any{"x": "y"}}
		for m := range 5 {
			obj := common
			if m%2 == 1 { // a member with its own top level, sharing the rest
				obj = map[string]any{"data": common["data"], "meta": common["meta"], "own": int64(m)}
			}
			targets = append(targets, render.Target{Cluster: string(rune('a' + m)), Type: cm, Object: obj, Source: src})
		}
	}
	var wantYAML, wantJSON bytes.Buffer
	for _, tg := range targets {
		y, err := yaml.Marshal(tg.Object)
		require.NoError(t, err)
		wantYAML.WriteString("---\n# Source: " + tg.Cluster + "\n")
		wantYAML.Write(y)
		j, err := json.Marshal(tg.Object)
		require.NoError(t, err)
		wantJSON.Write(j)
	}
	var gotYAML bytes.Buffer
	require.NoError(t, RenderedYAML(&gotYAML, targets))
	assert.Equal(t, wantYAML.String(), gotYAML.String())

	s := sharedMaps(targets, sharedDepth)
	assert.NotEmpty(t, s.remaining, "the test shares maps")
	var gotJSON []byte
	for _, tg := range targets {
		var err error
		gotJSON, err = appendJSON(gotJSON, tg.Object, s)
		require.NoError(t, err)
	}
	assert.Equal(t, wantJSON.String(), string(gotJSON))
	assert.Empty(t, s.remaining, "every shared map was used as often as counted")
	assert.Empty(t, s.encoded, "and forgotten after its last use")
}
