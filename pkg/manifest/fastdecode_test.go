package manifest_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/yaml11/yaml11test"
)

// trickyScalars are plain scalars whose meaning differs between YAML 1.1
// (yaml.v2, the reference decoder) and YAML 1.2 (yaml.v3, the tree), or
// between numbers and strings, plus a few strings that must stay strings.
var trickyScalars = []string{
	"", "~", "null", "Null", "NULL", "nULL",
	"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF",
	"true", "True", "TRUE", "false", "False", "FALSE", "tRUE", "yEs",
	"0", "-0", "+0", "1", "-1", "+1", "007", "08", "0x1F", "0X1F", "0o17", "0O17", "017", "0b101", "-0b101", "0b2", "1_000", "1__0", "_1",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
	"0xFFFFFFFFFFFFFFFF", "0b1111111111111111111111111111111111111111111111111111111111111111",
	"1.0", "1.", "-1.5", ".5", "+.5", "-.5", "1e3", "1E3", "1e+3", "1e-3", "1.5e300", "1e999", "-1e999", "1e21", "1e20", "0.000001", "0.0000001", "1.5_0", "6.02e23",
	".inf", "-.inf", "+.Inf", ".nan", ".NaN", "inf", "nan", "Infinity",
	"2001-12-14", "2001-12-14t21:59:43.10-05:00", "2002-12-14 21:59:43.1", "12:30", "1:20:30", "190:20:30.15",
	"512Mi", "100m", "1Gi", "25%", "v1", "1.2.3", "0.1.0", "10.0.0.1", "+", "-", ".", "..", "-a", "a b", "é", "日本",
	"<<", "=", "0x", "0b", "0o", "1e", "e3",
}

// docFor builds a document that puts value at several places: a template
// field, a key inside the template, a typed string field, a typed integer
// field and a free-form status.
func docsFor(value string) []string {
	return []string{
		fmt.Sprintf("apiVersion: types.kubefed.io/v1beta1\nkind: FederatedConfigMap\nmetadata: {name: x}\nspec:\n  template:\n    data:\n      k: %s\n      list: [%s, a]\n", value, value),
		fmt.Sprintf("kind: K\nspec:\n  template:\n    %s: v\n", value),
		fmt.Sprintf("kind: K\nmetadata:\n  name: %s\n  labels: {a: %s}\n", value, value),
		fmt.Sprintf("kind: K\nmetadata:\n  generation: %s\nspec:\n  retainReplicas: %s\n", value, value),
		fmt.Sprintf("kind: K\nstatus:\n  v: %s\n  m: {%s: 1}\n", value, value),
		fmt.Sprintf("kind: K\nspec:\n  overrides:\n  - clusterName: a\n    clusterOverrides:\n    - {path: /x, value: %s}\n", value),
	}
}

// targets are the types the differential tests decode into.
func targets() []func() any {
	return []func() any{
		func() any { return &federation.Object{} },
		func() any { return &federation.ReplicaSchedulingPreference{} },
		func() any { return &members.Federation{} },
		func() any { return &outer{} },
		func() any { return &map[string]any{} },
	}
}

// checkSame decodes data into each target type with DecodeStrict (the walk,
// then the fast path) and with DecodeStrictReference (the walk, then the
// reference decoder). Both must give the same value and positions, or
// errors with the same text: file, line and message. Where the fast path
// decodes, sigs.k8s.io/yaml.UnmarshalStrict alone must agree too.
func checkSame(t *testing.T, data []byte) (decoded int) {
	t.Helper()
	doc := manifest.Document{File: "f.yaml", Line: 7, Data: data}
	for _, newOut := range targets() {
		fast, ref := newOut(), newOut()
		fastPos, fastErr := manifest.DecodeStrict(doc, fast)
		refPos, refErr := manifest.DecodeStrictReference(doc, ref)
		if (fastErr == nil) != (refErr == nil) || fastErr != nil && fastErr.Error() != refErr.Error() {
			t.Fatalf("%T: DecodeStrict error %v, without the fast path %v\ndocument:\n%s", fast, fastErr, refErr, data)
		}
		if !reflect.DeepEqual(fast, ref) || !reflect.DeepEqual(fastPos, refPos) {
			t.Fatalf("%T: DecodeStrict differs from its reference decoder\nfast: %#v\nref:  %#v\ndocument:\n%s", fast, fast, ref, data)
		}

		walked, ok := manifest.DecodeFastAfterWalk(doc, newOut())
		if !walked || !ok {
			continue
		}
		decoded++
		lib := newOut()
		if err := yaml.UnmarshalStrict(data, lib); err != nil {
			t.Fatalf("fast path decoded %T, the reference fails: %v\ndocument:\n%s", fast, err, data)
		}
		if !reflect.DeepEqual(fast, lib) {
			t.Fatalf("fast path and reference differ for %T\nfast: %#v\nref:  %#v\ndocument:\n%s", fast, fast, lib, data)
		}
	}
	return decoded
}

// yamlForms writes s as a YAML scalar four ways: plain as it is (often not
// valid YAML, which both decoders must reject alike), double-quoted,
// single-quoted and as a literal block at indent.
func yamlForms(s, indent string) []string {
	literal := "|-\n" + indent + strings.ReplaceAll(s, "\n", "\n"+indent)
	return []string{s, strconv.Quote(s), "'" + strings.ReplaceAll(s, "'", "''") + "'", literal}
}

// TestDecodeFastMatchesReferenceRandom puts random scalars from the whole
// scalar space into documents, as values and keys, plain and quoted.
func TestDecodeFastMatchesReferenceRandom(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(31, 32))
	n := 600
	if testing.Short() {
		n = 80
	}
	decoded, rejected := 0, 0
	for range n {
		s := yaml11test.Text(r, 24, true)
		if r.IntN(40) == 0 {
			s = yaml11test.Long(r)
		}
		for _, v := range yamlForms(s, "        ") {
			for _, doc := range docsFor(v) {
				decoded += checkSame(t, []byte(doc))
				if _, err := manifest.DecodeStrict(manifest.Document{File: "f", Data: []byte(doc)}, &federation.Object{}); err != nil {
					rejected++
				}
			}
		}
	}
	t.Logf("the fast path decoded %d, %d documents were rejected", decoded, rejected)
	assert.Greater(t, decoded, n, "the comparison must not be vacuous")
	assert.Greater(t, rejected, n, "error cases must be compared too")
}

func TestDecodeFastMatchesReference(t *testing.T) {
	t.Parallel()
	decoded := 0
	for _, s := range trickyScalars {
		for _, v := range []string{s, `"` + s + `"`, `'` + s + `'`} {
			for _, doc := range docsFor(v) {
				decoded += checkSame(t, []byte(doc))
			}
		}
	}
	t.Logf("the fast path decoded %d of the documents", decoded)
	assert.Greater(t, decoded, 1000, "the comparison must not be vacuous")
	for _, doc := range []string{
		"a: &x 1\nb: *x\n",
		"spec:\n  template:\n    base: &b {x: 1}\n    more:\n      <<: *b\n      y: 2\n",
		"spec:\n  template:\n    n: !!str 12\n    m: ! 12\n    o: !!int \"7\"\n",
		"%YAML 1.1\n---\nkind: K\n",
		"spec:\n  template:\n    a: 1\n    a: 2\n",
		"spec:\n  template:\n    ? [a, b]\n    : c\n",
		"spec:\n  template:\n    text: |\n      line one\n        indented\n\n      after blank\n    folded: >\n      a\n      b\n\n      c\n    keep: |+\n      x\n\n    strip: |-\n      y\n",
		"spec:\n  template:\n    quoted: \"tab\\there \\u00e9 \\x41 \\\\ \\\"\"\n    single: 'it''s'\n    multi: \"a\n      b\"\n",
		"spec:\n  template:\n    empty: {}\n    emptyList: []\n    nested: [[1, 2], {a: [true, null, ~]}]\n",
		"kind: K\nmetadata:\n  creationTimestamp: 2001-12-14T21:59:43Z\n  ownerReferences:\n  - {apiVersion: v1, kind: X, name: y, uid: z, controller: true}\n",
		"kind: K\nmetadata:\n  creationTimestamp: null\n  deletionTimestamp: \"2001-12-14T21:59:43Z\"\n",
		"template:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {a: b}\nfree: {x: [1, 2.5]}\nitems:\n- name: a\n  weight: 1.5\n",
		"template: null\nitems: []\n",
	} {
		checkSame(t, []byte(doc))
	}
}

// TestDecodeFastTakesTheCommonPath pins that ordinary manifests do not fall
// back to the reference decoder, which would silently lose the speed.
func TestDecodeFastTakesTheCommonPath(t *testing.T) {
	t.Parallel()
	dir := "../../testdata/examples"
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		docs, err := manifest.Split(e.Name(), data)
		require.NoError(t, err)
		for _, d := range docs {
			var out any = &federation.Object{}
			if strings.Contains(string(d.Data), "\nkind: ReplicaSchedulingPreference") {
				out = &federation.ReplicaSchedulingPreference{}
			}
			walked, decoded := manifest.DecodeFastAfterWalk(d, out)
			require.True(t, walked, "%s:%d: %s", d.File, d.Line, d.Data)
			assert.True(t, decoded, "%s:%d takes the reference decoder", d.File, d.Line)
			checkSame(t, d.Data)
		}
	}
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range []string{"yes", "0o17", "1_000", "512Mi", "1e3", "\"x\"", "~", "-0b11", "0x1F", "1:20:30", "-.Inf", ".NaN", "OFF", "Null", "\"\\u2028\\r\"", "'it''s'", "? x", "- x"} {
		for _, doc := range docsFor(s) {
			f.Add([]byte(doc))
		}
	}
	f.Add([]byte("apiVersion: types.kubefed.io/v1beta1\nkind: FederatedDeployment\nmetadata:\n  name: web\n  namespace: shop\nspec:\n  template:\n    spec:\n      replicas: 3\n      template:\n        spec:\n          containers:\n          - name: web\n            image: nginx:1.27\n            args: [\"--port=80\", on, 1.5]\n            env:\n            - {name: A, value: \"1\"}\n  placement:\n    clusterSelector:\n      matchLabels: {tier: prod}\n  overrides:\n  - clusterName: c1\n    clusterOverrides:\n    - {op: add, path: /metadata/labels/x, value: {a: [1, true]}}\n"))
	f.Add([]byte("apiVersion: scheduling.kubefed.io/v1alpha1\nkind: ReplicaSchedulingPreference\nmetadata: {name: web}\nspec:\n  targetKind: FederatedDeployment\n  totalReplicas: 9\n  clusters:\n    \"*\": {weight: 1, maxReplicas: 3}\n"))
	f.Add([]byte("clusters:\n- name: a\n  labels: {region: eu}\ntypes: []\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSame(t, data)
	})
}

// TestNullKeysNamedInDocumentOrder: null keys inside free-form values made
// the YAML library's error name one of them in map order, so the message
// changed from run to run (found by FuzzDecodeFast); the first in the
// document is named, with its line.
func TestNullKeysNamedInDocumentOrder(t *testing.T) {
	t.Parallel()
	doc := manifest.Document{File: "f.yaml", Line: 7, Data: []byte("&711: 9B\n122087:\n  ~: Ya\n")}
	for range 20 {
		var out map[string]any
		_, err := manifest.DecodeStrict(doc, &out)
		require.EqualError(t, err, `f.yaml:7: a key is null (""); quote it if it is a name ("~"), or remove the entry`)
	}
	doc.Data = []byte("a:\n  b: [x, {c: {~: 1}}]\n  null: 2\n")
	var out map[string]any
	_, err := manifest.DecodeStrict(doc, &out)
	require.EqualError(t, err, `f.yaml:8: a.b[1].c: a key is null ("~"); quote it if it is a name ("~"), or remove the entry`)
}

// TestKeysThatCollideAsJSONStrings: keys that differ in YAML but are one
// string once the reference decoder has resolved them (0, .0 and 00 are
// all "0"; yes and true are "true") are duplicates, reported at the
// second, every run: before, the JSON decoder met them in Go's random map
// order and kept one or the other (found by FuzzDecodeFast).
func TestKeysThatCollideAsJSONStrings(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"0: a\n.0000: b\n":          `f.yaml:2: .0000: duplicate field (first set at line 1 as 0; YAML keys are strings here)`,
		"x:\n  yes: 1\n  true: 2\n": `f.yaml:3: x.true: duplicate field (first set at line 2 as yes; YAML keys are strings here)`,
		"1: a\n\"1\": b\n":          `f.yaml:2: 1: duplicate field (first set at line 1)`,
	} {
		for range 10 {
			var out map[string]any
			_, err := manifest.DecodeStrict(manifest.Document{File: "f.yaml", Line: 1, Data: []byte(in)}, &out)
			require.EqualError(t, err, want, in)
		}
	}
	var out map[string]any
	_, err := manifest.DecodeStrict(manifest.Document{File: "f.yaml", Line: 1, Data: []byte("0: a\n\"00\": b\n")}, &out)
	require.NoError(t, err, "a quoted key is its text")
	assert.Equal(t, map[string]any{"0": "a", "00": "b"}, out)
}
