package overrides_test

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	jsonpatchv4 "gopkg.in/evanphx/json-patch.v4"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
	"github.com/fedctl/fedctl/pkg/yaml11/yaml11test"
)

// kubefedOverride is KubeFed's ClusterOverride
// (pkg/controller/util/overrides.go): Value is an interface{} with
// omitempty, so a null value never reaches json-patch.
type kubefedOverride struct {
	Op    string `json:"op,omitempty"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// kubefedApply is KubeFed's ApplyJSONPatch run on the json-patch v4 line
// directly (gopkg.in/evanphx/json-patch.v4): values decoded into interface{}
// by decodeValue (KubeFed used encoding/json), an empty op defaulted to
// replace, the list encoded and decoded as a patch, applied to the encoded
// object, and the result decoded the way unstructured objects are.
func kubefedApply(obj map[string]any, items []federation.Override, decodeValue func([]byte, any) error) (map[string]any, error) {
	kf := make([]kubefedOverride, len(items))
	for i, o := range items {
		kf[i] = kubefedOverride{Op: o.Op, Path: o.Path}
		if kf[i].Op == "" {
			kf[i].Op = "replace"
		}
		if len(o.Value) > 0 {
			if err := decodeValue(o.Value, &kf[i].Value); err != nil {
				return nil, err
			}
		}
	}
	patchJSON, err := json.Marshal(kf)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatchv4.DecodePatch(patchJSON)
	if err != nil {
		return nil, err
	}
	if obj == nil {
		obj = map[string]any{}
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	patched, err := patch.Apply(doc)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(patched, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// TestApplyAgreesWithJSONPatchV4 applies random valid overrides to random
// objects through Apply and through json-patch v4 the way KubeFed did; both
// must succeed with the same object or both fail.
func TestApplyAgreesWithJSONPatchV4(t *testing.T) {
	t.Parallel()
	g := &gen{r: rand.New(rand.NewPCG(2022, 810))}
	runs := 20000
	if testing.Short() {
		runs = 2000
	}
	var succeeded, failed int
	for run := range runs {
		obj := g.object(3)
		items := g.overrides(obj)
		ovs := []federation.ClusterOverrides{
			{ClusterName: "us-1", ClusterOverrides: []federation.Override{{Op: "remove", Path: "/nothing"}}},
			{ClusterName: "eu-1", ClusterOverrides: items},
		}
		if overrides.Validate(ovs) != nil {
			continue
		}
		before, err := json.Marshal(obj)
		require.NoError(t, err)

		// KubeFed decoded values with encoding/json, which rounds integers
		// beyond 2^53 (fedctl keeps them: TestApplyNumbers); decode like
		// fedctl to compare the patching alone.
		want, wantErr := kubefedApply(obj, items, utiljson.Unmarshal)
		got, err := overrides.Apply(obj, "eu-1", ovs)
		if wantErr != nil {
			failed++
			require.Error(t, err, "run %d: v4 failed with %v\nobject: %s\noverrides: %s", run, wantErr, before, mustJSON(items))
			continue
		}
		succeeded++
		require.NoError(t, err, "run %d: v4 succeeded\nobject: %s\noverrides: %s", run, before, mustJSON(items))
		require.Equal(t, want, got, "run %d\nobject: %s\noverrides: %s", run, before, mustJSON(items))
	}
	t.Logf("%d runs: %d succeeded, %d failed in both", runs, succeeded, failed)
	assert.Greater(t, succeeded, runs/5, "the generator produces patches that apply")
	assert.Greater(t, failed, runs/5, "the generator produces patches that fail")
}

// TestApplyNativeAgreesWithJSONPatchV4 holds the fast path alone to
// json-patch v4 for each op it handles: wherever it applies a patch, v4
// must apply it too, to the same object.
func TestApplyNativeAgreesWithJSONPatchV4(t *testing.T) {
	t.Parallel()
	g := &gen{r: rand.New(rand.NewPCG(2026, 9))}
	runs := 20000
	if testing.Short() {
		runs = 3000
	}
	native := map[string]int{}
	for run := range runs {
		obj := g.object(3)
		items := g.overrides(obj)
		ovs := []federation.ClusterOverrides{{ClusterName: "eu-1", ClusterOverrides: items}}
		if overrides.Validate(ovs) != nil {
			continue
		}
		before := mustJSON(obj)
		got, ok := overrides.ApplyNative(obj, "eu-1", ovs)
		require.Equal(t, before, mustJSON(obj), "run %d: the fast path modified its input", run)
		if !ok {
			continue
		}
		for _, o := range items {
			native[o.Op]++
		}
		want, err := kubefedApply(obj, items, utiljson.Unmarshal)
		require.NoError(t, err, "run %d: the fast path applied what v4 rejects\nobject: %s\noverrides: %s", run, before, mustJSON(items))
		require.Equal(t, want, got, "run %d\nobject: %s\noverrides: %s", run, before, mustJSON(items))
	}
	t.Logf("ops the fast path applied: %v", native)
	for _, op := range []string{"add", "remove", "replace", ""} {
		assert.Greater(t, native[op], runs/20, "the fast path must apply %q often", op)
	}
}

// TestKubeFedWroteNullForAMissingValue pins what KubeFed did with an add or
// replace without a value, which fedctl rejects: json-patch v4 wrote null,
// exactly what an explicit null writes in fedctl.
func TestKubeFedWroteNullForAMissingValue(t *testing.T) {
	t.Parallel()
	obj := map[string]any{"spec": map[string]any{"replicas": int64(3)}}
	for _, op := range []string{"add", "replace", ""} {
		kubefed, err := kubefedApply(obj, []federation.Override{{Op: op, Path: "/spec/replicas"}}, json.Unmarshal)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"spec": map[string]any{"replicas": nil}}, kubefed)

		explicit := []federation.ClusterOverrides{{ClusterName: "eu-1", ClusterOverrides: []federation.Override{{Op: op, Path: "/spec/replicas", Value: json.RawMessage("null")}}}}
		got, err := overrides.Apply(obj, "eu-1", explicit)
		require.NoError(t, err)
		assert.Equal(t, kubefed, got)

		missing := []federation.ClusterOverrides{{ClusterName: "eu-1", ClusterOverrides: []federation.Override{{Op: op, Path: "/spec/replicas"}}}}
		_, err = overrides.Apply(obj, "eu-1", missing)
		assert.ErrorContains(t, err, `value is required`)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

// gen makes random objects and overrides aimed at json-patch's edge cases:
// keys that need escaping, missing members and parents, nulls, and array
// indices in range, at the end, past it, negative, "-", and oddly written.
type gen struct{ r *rand.Rand }

var genKeys = []string{"a", "b", "c", "x/y", "m~n", "~1", "0", "1", "", "-", "01", " a", "é", "\u2028"}

// key is mostly one of genKeys, which collide often, sometimes random text
// from the whole scalar space, invalid UTF-8 included.
func (g *gen) key() string {
	if g.r.IntN(10) == 0 {
		return yaml11test.Text(g.r, 8, true)
	}
	return genKeys[g.r.IntN(len(genKeys))]
}

func (g *gen) object(depth int) map[string]any {
	obj := map[string]any{}
	for range g.r.IntN(5) {
		obj[g.key()] = g.value(depth - 1)
	}
	return obj
}

func (g *gen) value(depth int) any {
	n := 6
	if depth > 0 {
		n = 9
	}
	switch g.r.IntN(n) {
	case 0:
		return nil
	case 1:
		return g.r.IntN(2) == 0
	case 2:
		return int64(g.r.IntN(200) - 100)
	case 3:
		return float64(g.r.IntN(20)) / 4 // some integral, some not
	case 4:
		if g.r.IntN(3) == 0 {
			return yaml11test.Text(g.r, 20, true)
		}
		return []string{"", "x", "nginx:1.27", "[1]", "{}"}[g.r.IntN(5)]
	case 5:
		return map[string]any{}
	case 6, 7:
		return g.object(depth)
	default:
		arr := make([]any, g.r.IntN(4))
		for i := range arr {
			arr[i] = g.value(depth - 1)
		}
		return arr
	}
}

// rawValue is a random override value, sometimes written the way a person
// might: with a fraction or exponent, or surrounded by whitespace.
func (g *gen) rawValue() json.RawMessage {
	switch g.r.IntN(12) {
	case 0:
		return json.RawMessage("null")
	case 1:
		return json.RawMessage([]string{"2.0", "1e1", "-0.0", "2.5e0", "0.25", "-0", "1E+2", "1e400", "12345678901234567890", "9007199254740993", "0x1F", "017", "\"\\u2028\\ud800\""}[g.r.IntN(13)])
	case 2:
		return json.RawMessage(" \n[1, {\"a\": 2.0}] ")
	default:
		return json.RawMessage(mustJSON(g.value(2)))
	}
}

func (g *gen) overrides(obj map[string]any) []federation.Override {
	var items []federation.Override
	used := map[string]bool{}
	for range 1 + g.r.IntN(3) {
		path := g.path(obj)
		if used[path] {
			continue
		}
		used[path] = true
		o := federation.Override{Op: []string{"add", "remove", "replace", ""}[g.r.IntN(4)], Path: path}
		if o.Op != "remove" {
			o.Value = g.rawValue()
		}
		items = append(items, o)
	}
	return items
}

// path walks obj from the root, mostly along members and elements that
// exist, sometimes off them or below a scalar.
func (g *gen) path(obj map[string]any) string {
	var b strings.Builder
	var cur any = obj
	for {
		var seg string
		switch c := cur.(type) {
		case map[string]any:
			if len(c) > 0 && g.r.IntN(6) != 0 {
				keys := slices.Sorted(maps.Keys(c))
				seg = keys[g.r.IntN(len(keys))]
			} else {
				seg = g.key()
			}
			cur = c[seg]
		case []any:
			n := len(c)
			if n > 0 && g.r.IntN(4) != 0 {
				i := g.r.IntN(n)
				seg, cur = strconv.Itoa(i), c[i]
				break
			}
			seg = []string{strconv.Itoa(n), strconv.Itoa(n + 1), "-1", strconv.Itoa(-n), strconv.Itoa(-n - 1), "-", "01", "+1", "x"}[g.r.IntN(9)]
			cur = nil
		default:
			seg, cur = g.key(), nil
		}
		b.WriteString("/")
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(seg))
		switch cur.(type) {
		case map[string]any, []any:
			if g.r.IntN(3) == 0 {
				return b.String()
			}
		default:
			if g.r.IntN(8) != 0 {
				return b.String()
			}
		}
	}
}
