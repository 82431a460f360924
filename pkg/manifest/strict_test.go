package manifest_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/manifest"
)

type inner struct {
	Name   string            `json:"name"`
	Count  *int32            `json:"count,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Weight float64           `json:"weight,omitempty"`
}

type embedded struct {
	Shared string `json:"shared,omitempty"`
}

type outer struct {
	embedded `json:",inline"`
	Kind     string                     `json:"kind"`
	Items    []inner                    `json:"items"`
	Enabled  bool                       `json:"enabled,omitempty"`
	Template *unstructured.Unstructured `json:"template,omitempty"`
	Free     map[string]interface{}     `json:"free,omitempty"`
}

func decode(t *testing.T, text string) (*outer, manifest.Positions, []*manifest.Error) {
	t.Helper()
	out := &outer{}
	pos, err := manifest.DecodeStrict(manifest.Document{File: "in.yaml", Line: 10, Data: []byte(text)}, out)
	var errs []*manifest.Error
	if err != nil {
		joined, ok := err.(interface{ Unwrap() []error })
		if ok {
			for _, e := range joined.Unwrap() {
				var me *manifest.Error
				require.True(t, errors.As(e, &me), "error %v is not a *manifest.Error", e)
				errs = append(errs, me)
			}
		} else {
			var me *manifest.Error
			require.True(t, errors.As(err, &me), "error %v is not a *manifest.Error", err)
			errs = append(errs, me)
		}
	}
	return out, pos, errs
}

func TestDecodeStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string // rendered errors, in order
	}{
		{
			name: "a valid document decodes without errors",
			in:   "kind: K\nshared: s\nitems:\n- name: a\n  count: 3\n  weight: 1\n  labels: {x: z}\nenabled: true\n",
		},
		{
			name: "a typo names the file, the absolute line and a suggestion",
			in:   "kind: K\nitems:\n- name: a\n  lables: {x: y}\n",
			want: []string{`in.yaml:13: items[0]: unknown field "lables" (did you mean "labels"?)`},
		},
		{
			name: "a field in the wrong case suggests the right one",
			in:   "Kind: K\n",
			want: []string{`in.yaml:10: unknown field "Kind" (did you mean "kind"?)`},
		},
		{
			name: "an unknown field far from any known one gets no suggestion",
			in:   "kind: K\nzzzzzzzz: 1\n",
			want: []string{`in.yaml:11: unknown field "zzzzzzzz"`},
		},
		{
			name: "a duplicate key points at both lines",
			in:   "kind: K\nkind: L\n",
			want: []string{`in.yaml:11: kind: duplicate field (first set at line 10)`},
		},
		{
			name: "a number where a string belongs says how to quote it",
			in:   "kind: K\nitems:\n- name: a\n  labels:\n    tier: 1\n",
			want: []string{`in.yaml:14: items[0].labels.tier: must be a string, got integer 1; quote it: "1"`},
		},
		{
			name: "a boolean label value is the classic YAML trap",
			in:   "items:\n- name: a\n  labels: {on: yes, b: true}\n",
			want: []string{
				`in.yaml:12: items[0].labels: key on is read as a boolean; quote it: "on"`,
				`in.yaml:12: items[0].labels.b: must be a string, got boolean true; quote it: "true"`,
			},
		},
		{
			// sigs.k8s.io/yaml, like kubectl, reads YAML 1.1, where y, yes and
			// on are booleans; decoded into a string they silently became
			// "true" before the walk caught them.
			name: "YAML 1.1 booleans where a string belongs must be quoted",
			in:   "items:\n- name: a\n  labels: {x: y, z: 'y', w: off}\n",
			want: []string{
				`in.yaml:12: items[0].labels.x: must be a string, got boolean y; quote it: "y"`,
				`in.yaml:12: items[0].labels.w: must be a string, got boolean off; quote it: "off"`,
			},
		},
		{
			name: "YAML 1.1 booleans are booleans",
			in:   "enabled: yes\n",
		},
		{
			name: "a mapping where a list belongs",
			in:   "items: {name: a}\n",
			want: []string{`in.yaml:10: items: must be a list, got a mapping`},
		},
		{
			name: "a string where an integer belongs",
			in:   "items:\n- count: three\n",
			want: []string{`in.yaml:11: items[0].count: must be an integer, got "three"`},
		},
		{
			name: "an integer is a valid float",
			in:   "items:\n- weight: 2\n",
		},
		{
			name: "templates and free-form maps keep unknown fields",
			in:   "template:\n  apiVersion: v1\n  kind: ConfigMap\n  anything: {goes: [1, 2]}\nfree: {a: {b: c}}\n",
		},
		{
			name: "every problem is reported at once, in document order",
			in:   "kidn: K\nitems:\n- nmae: a\n- count: x\nenabled: maybe\n",
			want: []string{
				`in.yaml:10: unknown field "kidn" (did you mean "kind"?)`,
				`in.yaml:12: items[0]: unknown field "nmae" (did you mean "name"?)`,
				`in.yaml:13: items[1].count: must be an integer, got "x"`,
				`in.yaml:14: enabled: must be true or false, got "maybe"`,
			},
		},
		{
			name: "a syntax error is reported at its absolute line",
			in:   "kind: K\nitems:\n- name: a\n   bad: indent\n",
			want: []string{`in.yaml:13: invalid YAML: mapping values are not allowed in this context`},
		},
		{
			name: "merge keys are refused rather than half supported",
			in:   "base: &b {name: a}\n",
			want: []string{`in.yaml:10: unknown field "base"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, _, errs := decode(t, tt.in)
			got := make([]string, len(errs))
			for i, e := range errs {
				got[i] = e.Error()
			}
			if len(tt.want) == 0 {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDecodeStrictFillsTheValue(t *testing.T) {
	t.Parallel()
	out, pos, errs := decode(t, "kind: K\nshared: s\nitems:\n- name: a\n  count: 3\n  labels:\n    x: z\ntemplate:\n  kind: ConfigMap\n  data: {k: v}\n")
	require.Empty(t, errs)
	require.Len(t, out.Items, 1)
	assert.Equal(t, "K", out.Kind)
	assert.Equal(t, "s", out.Shared)
	assert.Equal(t, int32(3), *out.Items[0].Count)
	assert.Equal(t, map[string]string{"x": "z"}, out.Items[0].Labels)
	assert.Equal(t, "ConfigMap", out.Template.GetKind())

	assert.Equal(t, 14, pos.Line("items[0].count"))
	assert.Equal(t, 16, pos.Line("items[0].labels.x"))
	assert.Equal(t, 15, pos.Line("items[0].labels.missing"), "an unknown path falls back to its parent")
	assert.Equal(t, 10, pos.Line("nothing"), "an unknown top-level path falls back to the document")
	assert.Equal(t, "in.yaml:14: items[0].count: too many", pos.Errorf("items[0].count", "too many").Error())
}

func TestDecodeStrictEmptyDocument(t *testing.T) {
	t.Parallel()
	out, _, errs := decode(t, "# only a comment\n")
	assert.Empty(t, errs)
	assert.Equal(t, &outer{}, out)
}

func TestErrorFormatting(t *testing.T) {
	t.Parallel()
	cause := errors.New("boom")
	tests := []struct {
		err  *manifest.Error
		want string
	}{
		{&manifest.Error{File: "a.yaml", Line: 3, Object: "FederatedDeployment shop/web", Field: "spec.x", Err: cause}, "a.yaml:3: FederatedDeployment shop/web: spec.x: boom"},
		{&manifest.Error{File: "a.yaml", Err: cause}, "a.yaml: boom"},
		{&manifest.Error{Line: 7, Err: cause}, "line 7: boom"},
		{&manifest.Error{Field: "kind", Err: cause}, "kind: boom"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error())
		assert.ErrorIs(t, tt.err, cause)
	}
}

func FuzzDecodeStrict(f *testing.F) {
	for _, seed := range []string{
		"kind: K\nitems:\n- name: a\n  count: 3\n",
		"items: [{labels: {a: 1}}]\n",
		"template: {a: [1, {b: c}]}\n",
		"{\"kind\": \"K\", \"items\": []}",
		"a: &x 1\nb: *x\n",
		"- 1\n- 2\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := &outer{}
		// Must never panic; any error must be a positioned *Error.
		_, err := manifest.DecodeStrict(manifest.Document{File: "f", Line: 1, Data: data}, out)
		if err == nil {
			return
		}
		var me *manifest.Error
		if !errors.As(err, &me) {
			t.Fatalf("error is not a *manifest.Error: %v", err)
		}
	})
}
