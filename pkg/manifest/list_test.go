package manifest

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	yamlv3 "go.yaml.in/yaml/v3"
)

// lineOf is the line in the file of the scalar value of key (the first
// found, depth first) in d.
func lineOf(t *testing.T, d Document, key string) int {
	t.Helper()
	var root yamlv3.Node
	require.NoError(t, yamlv3.Unmarshal(d.Data, &root), "%s", d.Data)
	var find func(n *yamlv3.Node) int
	find = func(n *yamlv3.Node) int {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Kind == yamlv3.MappingNode && n.Content[i].Value == key {
				return n.Content[i+1].Line
			}
		}
		for _, c := range n.Content {
			if l := find(c); l > 0 {
				return l
			}
		}
		return 0
	}
	l := find(&root)
	require.Positive(t, l, "no %s in %s", key, d.Data)
	return d.Line + l - 1
}

// TestListItemsKeepTheirLines: every field of a List's item is at its line
// in the file, whatever the item holds (blank lines, comments, a long
// string kubectl wrapped over lines, a dash alone on its line), for YAML
// and JSON lists and any kind ending in List; an item whose alias names an
// anchor in another item is written out with the alias resolved.
func TestListItemsKeepTheirLines(t *testing.T) {
	t.Parallel()
	yamlList := strings.Join([]string{
		"# kubectl get -o yaml",             // 1
		"apiVersion: v1",                    // 2
		"items:",                            // 3
		"- apiVersion: v1",                  // 4
		"  kind: ConfigMap",                 // 5
		"",                                  // 6
		"# a comment, less indented",        // 7
		"  data:",                           // 8
		"    long: this string was wrapped", // 9
		"      over two lines",              // 10
		"    after: x",                      // 11
		"-",                                 // 12
		"  kind: Secret",                    // 13
		"  stringData: {k: v}",              // 14
		"  marker: here",                    // 15
		"kind: List",                        // 16
		"metadata:",                         // 17
		"  resourceVersion: \"\"",           // 18
	}, "\n") + "\n"
	docs, err := Split("f", []byte("x: 0\n---\n"+yamlList))
	require.NoError(t, err)
	require.Len(t, docs, 3)
	assert.Equal(t, 6, docs[1].Line)
	assert.Equal(t, 7, lineOf(t, docs[1], "kind"))
	assert.Equal(t, 13, lineOf(t, docs[1], "after"), "after the blank line, the comment and the wrapped string")
	assert.Equal(t, 15, docs[2].Line)
	assert.Equal(t, 17, lineOf(t, docs[2], "marker"), "the last item ends before the list's kind")
	assert.NotContains(t, string(docs[2].Data), "List")

	jsonList := "{\n  \"apiVersion\": \"v1\",\n  \"items\": [\n    {\n      \"kind\": \"A\",\n      \"n\": 1\n    },\n    {\"kind\": \"B\",\n     \"marker\": 2}\n  ],\n  \"kind\": \"FederatedDeploymentList\"\n}\n"
	docs, err = Split("f", []byte(jsonList))
	require.NoError(t, err)
	require.Len(t, docs, 2, "a kind ending in List is expanded, as kubectl does")
	assert.Equal(t, 4, docs[0].Line)
	assert.Equal(t, 6, lineOf(t, docs[0], "n"))
	assert.Equal(t, 8, docs[1].Line)
	assert.Equal(t, 9, lineOf(t, docs[1], "marker"))

	aliased := "kind: List\nitems:\n- kind: A\n  labels: &shared {app: web}\n- kind: B\n  labels: *shared\n  marker: 1\n"
	docs, err = Split("f", []byte(aliased))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Equal(t, 5, docs[1].Line)
	var b struct {
		Labels map[string]string `yaml:"labels"`
	}
	_, err = DecodeStrict(docs[1], &struct {
		Kind   string            `json:"kind"`
		Labels map[string]string `json:"labels"`
		Marker int               `json:"marker"`
	}{})
	require.NoError(t, err)
	require.NoError(t, yamlv3.Unmarshal(docs[1].Data, &b))
	assert.Equal(t, map[string]string{"app": "web"}, b.Labels, "the alias is resolved")
}

// FuzzExpandList: whatever expandList makes of a List, each document it
// returns reads as the item it came from.
func FuzzExpandList(f *testing.F) {
	f.Add([]byte("kind: List\nitems:\n- kind: A\n  n: 1\n-\n  kind: B\n\n# c\n  s: \"a\n b\"\nmetadata: {}\n"))
	f.Add([]byte(`{"kind": "List", "items": [{"kind": "A"}, {"kind": "B", "n": [1, 2]}]}`))
	f.Add([]byte("kind: XList\nitems: [{a: 1}, {b: &x 2, c: *x}]\n"))
	f.Add([]byte("kind: List\nitems:\n- &a {k: 1}\n- k: *a\n- !!map {k: 2}\n"))
	f.Add([]byte("kind: List\nitems:\n- &a {k: *a}\n"))
	f.Add([]byte("kind: List\nitems:\n- k: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := expandList(Document{File: "f", Line: 1, Data: data})
		if err != nil || len(docs) == 1 && string(docs[0].Data) == string(data) {
			return // not a list, or an error the decoder reports
		}
		var root yamlv3.Node
		if yamlv3.Unmarshal(data, &root) != nil {
			t.Fatalf("expanded a document that does not parse")
		}
		var items *yamlv3.Node
		top := root.Content[0]
		for i := 0; i+1 < len(top.Content); i += 2 {
			if top.Content[i].Value == "items" {
				items = top.Content[i+1]
			}
		}
		if items == nil || len(items.Content) != len(docs) {
			t.Fatalf("%d documents for the items of %q", len(docs), data)
		}
		for i, d := range docs {
			var got yamlv3.Node
			if err := yamlv3.Unmarshal(d.Data, &got); err != nil || len(got.Content) != 1 {
				t.Fatalf("item %d does not read alone (%v): %q", i, err, d.Data)
			}
			if !sameNode(got.Content[0], items.Content[i]) {
				t.Fatalf("item %d reads differently alone: %q from %q", i, d.Data, data)
			}
			// YAML breaks lines at \n, \r\n and a lone \r
			breaks := strings.Count(string(data), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r")
			if d.Line < 1 || d.Line > breaks+1 {
				t.Fatalf("item %d at line %d", i, d.Line)
			}
		}
	})
}

// TestListWithRunawayAliases: an anchor that holds itself, or aliases that
// multiply, are an error at the items instead of being followed for ever
// (a stack overflow, which no recover catches) or a billion times.
func TestListWithRunawayAliases(t *testing.T) {
	t.Parallel()
	laughs := "kind: List\nitems:\n- a: &a [x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n- g: [*f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
	for name, in := range map[string]string{
		"an anchor holding itself":           "kind: List\nitems:\n- &a {k: *a}\n",
		"an anchor holding itself, inside":   "kind: List\nitems:\n- k: &a [*a]\n",
		"aliases that multiply across items": laughs,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := expandList(Document{File: "f", Line: 1, Data: []byte(in)})
			require.ErrorContains(t, err, "f:2: items: an anchor holds an alias of itself, or aliases stand for more than 10 times the nodes written")
		})
	}
	// aliases within bounds are followed
	docs, err := expandList(Document{File: "f", Line: 1, Data: []byte("kind: List\nitems:\n- a: &a [1, 2]\n- b: [*a, *a]\n")})
	require.NoError(t, err)
	require.Len(t, docs, 2)
	assert.Contains(t, string(docs[1].Data), "1")
}

// TestJSONListWithTwoItemsKeys: the last items key is the list, for the
// cut as for the parse.
func TestJSONListWithTwoItemsKeys(t *testing.T) {
	t.Parallel()
	docs, err := expandList(Document{File: "f", Line: 1, Data: []byte(`{"kind": "List", "items": [{"kind": "First"}], "items": [{"kind": "Last"}]}`)})
	require.NoError(t, err)
	require.Len(t, docs, 1)
	assert.Equal(t, `{"kind": "Last"}`, string(docs[0].Data))
}
