package printers

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func sampleTable() *ObjectTable {
	row := func(name, ready string, replicas float64, labels map[string]string) ObjectRow {
		return ObjectRow{
			Cells:  []any{name, ready, replicas, "note " + name},
			Labels: labels,
			Doc:    map[string]any{"metadata": map[string]any{"name": name}, "spec": map[string]any{"replicas": replicas, "memory": map[string]any{"web-10": "1Gi", "web-2": "512Mi", "api": "2Gi"}[name]}},
		}
	}
	return &ObjectTable{
		Columns: []metav1.TableColumnDefinition{{Name: "Name"}, {Name: "Ready"}, {Name: "Replicas", Type: "integer"}, {Name: "Note", Priority: 1}},
		Rows: []ObjectRow{
			row("web-10", "True", 10, map[string]string{"tier": "web", "region": "eu"}),
			row("web-2", "False", 2, map[string]string{"tier": "web"}),
			row("api", "", 3, nil),
		},
	}
}

func TestObjectTableFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts TableOptions
		want string
	}{
		{"default: empty cells print <none>, priority columns hidden", TableOptions{},
			"NAME     READY    REPLICAS\nweb-10   True     10\nweb-2    False    2\napi      <none>   3\n"},
		{"wide", TableOptions{Wide: true},
			"NAME     READY    REPLICAS   NOTE\nweb-10   True     10         note web-10\nweb-2    False    2          note web-2\napi      <none>   3          note api\n"},
		{"no headers", TableOptions{NoHeaders: true},
			"web-10   True     10\nweb-2    False    2\napi      <none>   3\n"},
		{"show labels", TableOptions{ShowLabels: true},
			"NAME     READY    REPLICAS   LABELS\nweb-10   True     10         region=eu,tier=web\nweb-2    False    2          tier=web\napi      <none>   3          <none>\n"},
		{"label columns", TableOptions{ColumnLabels: []string{"tier", "region"}},
			"NAME     READY    REPLICAS   TIER   REGION\nweb-10   True     10         web    eu\nweb-2    False    2          web    \napi      <none>   3                 \n"},
		{"sort by a name: natural order", TableOptions{SortBy: ".metadata.name"},
			"NAME     READY    REPLICAS\napi      <none>   3\nweb-2    False    2\nweb-10   True     10\n"},
		{"sort by a number", TableOptions{SortBy: "{.spec.replicas}"},
			"NAME     READY    REPLICAS\nweb-2    False    2\napi      <none>   3\nweb-10   True     10\n"},
		{"sort by a quantity", TableOptions{SortBy: "spec.memory"},
			"NAME     READY    REPLICAS\nweb-2    False    2\nweb-10   True     10\napi      <none>   3\n"},
		{"a missing field sorts first, the rest keep their order", TableOptions{SortBy: ".spec.nothing"},
			"NAME     READY    REPLICAS\nweb-10   True     10\nweb-2    False    2\napi      <none>   3\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			require.NoError(t, sampleTable().Write(&out, tt.opts))
			assert.Equal(t, tt.want, out.String())
		})
	}
}

func TestObjectTableColors(t *testing.T) {
	t.Parallel()
	mark := func(s string) string { return "[" + s + "]" }
	var out bytes.Buffer
	require.NoError(t, sampleTable().Write(&out, TableOptions{Colors: map[string]func(string) string{"READY": mark}}))
	assert.Equal(t, "NAME     READY    REPLICAS\nweb-10   [True]     10\nweb-2    [False]    2\napi      [<none>]   3\n", out.String(),
		"the cell is coloured in place, padding kept outside the colour")

	out.Reset()
	require.NoError(t, sampleTable().Write(&out, TableOptions{NoHeaders: true, Colors: map[string]func(string) string{"READY": mark}}))
	assert.NotContains(t, out.String(), "[", "without headers no column is coloured")

	out.Reset()
	escaped := &ObjectTable{Columns: []metav1.TableColumnDefinition{{Name: "Name"}}, Rows: []ObjectRow{{Cells: []any{"\x1b[31mred"}}}}
	require.NoError(t, escaped.Write(&out, TableOptions{}))
	assert.Equal(t, "NAME\n^[[31mred\n", out.String(), "control characters from a member are escaped, as kubectl does")
}

func TestObjectTableEmpty(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.NoError(t, (&ObjectTable{Columns: []metav1.TableColumnDefinition{{Name: "Name"}}}).Write(&out, TableOptions{}))
	assert.Empty(t, out.String(), "no rows, no header, as kubectl")
}

func TestSortRowsErrors(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{"", "{.a}{.b}", "{.items[}"} {
		_, err := SortRows(nil, expr)
		assert.Error(t, err, expr)
	}
}

func TestNaturalCompare(t *testing.T) {
	t.Parallel()
	ordered := []string{"", "a", "a1", "a2", "a10", "a10b", "a010c", "b", "web-2", "web-10"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if ordered[i] == "a10b" && ordered[j] == "a010c" || ordered[i] == "a010c" && ordered[j] == "a10b" {
				continue
			}
			assert.Equal(t, want, naturalCompare(ordered[i], ordered[j]), "%q vs %q", ordered[i], ordered[j])
		}
	}
}

func TestCustomColumns(t *testing.T) {
	t.Parallel()
	cols, err := ParseCustomColumns("NAME:.metadata.name,REPLICAS:{.spec.replicas},PORTS:.spec.ports[*].port,MISSING:.spec.nothing")
	require.NoError(t, err)
	docs := []map[string]any{
		{"metadata": map[string]any{"name": "web"}, "spec": map[string]any{"replicas": float64(3), "ports": []any{map[string]any{"port": float64(80)}, map[string]any{"port": float64(443)}}}},
		{"metadata": map[string]any{"name": "api"}, "spec": map[string]any{"replicas": float64(1)}},
	}
	t.Run("a leading CLUSTER column and one row per document", func(t *testing.T) {
		t.Parallel()
		tab := CustomColumnsTable(cols, []string{"CLUSTER"}, docs, func(i int) []any { return []any{[]string{"eu-1", "us-1"}[i]} }, nil)
		var out bytes.Buffer
		require.NoError(t, tab.Write(&out, TableOptions{}))
		assert.Equal(t, "CLUSTER   NAME   REPLICAS   PORTS    MISSING\neu-1      web    3          80,443   <none>\nus-1      api    1          <none>   <none>\n", out.String())
		out.Reset()
		require.NoError(t, tab.Write(&out, TableOptions{NoHeaders: true, SortBy: ".metadata.name"}))
		assert.Equal(t, "us-1   api   1     <none>   <none>\neu-1   web   3     80,443   <none>\n", out.String())
	})
	t.Run("a file: headers then paths", func(t *testing.T) {
		t.Parallel()
		fromFile, err := ParseCustomColumnsFile("cols.txt", []byte("NAME   REPLICAS\n.metadata.name   .spec.replicas\n"))
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, CustomColumnsTable(fromFile, nil, docs, nil, nil).Write(&out, TableOptions{}))
		assert.Equal(t, "NAME   REPLICAS\nweb    3\napi    1\n", out.String())
	})
	for _, tt := range []struct{ spec, want string }{
		{"", "no custom columns given"},
		{"NAME", `"NAME" is not HEADER:PATH`},
		{"NAME:", `"NAME:" is not HEADER:PATH`},
		{"NAME:{.a}{.b}", `is not a JSONPath expression`},
	} {
		_, err := ParseCustomColumns(tt.spec)
		assert.ErrorContains(t, err, tt.want, tt.spec)
	}
	_, err = ParseCustomColumnsFile("cols.txt", []byte("NAME REPLICAS\n.metadata.name\n"))
	assert.EqualError(t, err, "custom-columns-file cols.txt: 2 headers but 1 paths")
	_, err = ParseCustomColumnsFile("cols.txt", []byte("NAME\n"))
	assert.EqualError(t, err, "custom-columns-file cols.txt: want two lines, the headers and their paths, got 1")
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	type item struct {
		Name string  `json:"name"`
		UID  int64   `json:"uid"`
		Load float64 `json:"load"`
	}
	list := struct {
		Kind  string `json:"kind"`
		Items []item `json:"items"`
	}{"ClusterList", []item{{"eu-1", 1000680000, 0.5}, {"us-1", 7, 2}}}
	for format, want := range map[string]string{
		`jsonpath={.items[*].uid}`:                                                  "1000680000 7",
		`jsonpath={.items[*].load}`:                                                 "0.5 2",
		`go-template={{range .items}}{{.uid}},{{end}}`:                              "1000680000,7,",
		`jsonpath={.items[*].name}`:                                                 "eu-1 us-1",
		`jsonpath={range .items[*]}{.name}{"\n"}{end}`:                              "eu-1\nus-1\n",
		`go-template={{range .items}}{{.name}},{{end}}`:                             "eu-1,us-1,",
		`jsonpath-as-json={.items[0]}`:                                              "[\n    {\n        \"load\": 0.5,\n        \"name\": \"eu-1\",\n        \"uid\": 1000680000\n    }\n]\n",
		`go-template={{.kind}} has {{len .items}} items{{"\n"}}`:                    "ClusterList has 2 items\n",
		`jsonpath={.items[?(@.name=="us-1")].name}`:                                 "us-1",
		`go-template={{range .items}}{{if eq .name "eu-1"}}{{.name}}{{end}}{{end}}`: "eu-1",
	} {
		p, ok, err := NewTemplatePrinter(format, "", true)
		require.NoError(t, err, format)
		require.True(t, ok, format)
		var out bytes.Buffer
		require.NoError(t, Template(&out, p, list), format)
		assert.Equal(t, want, out.String(), format)
	}
}

func TestNewTemplatePrinter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "t.tmpl")
	require.NoError(t, os.WriteFile(file, []byte("{{.kind}}"), 0o600))
	doc := map[string]any{"kind": "List", "items": []any{}}

	p, ok, err := NewTemplatePrinter("go-template-file="+file, "", true)
	require.NoError(t, err)
	require.True(t, ok)
	var out bytes.Buffer
	require.NoError(t, Template(&out, p, doc))
	assert.Equal(t, "List", out.String())

	p, _, err = NewTemplatePrinter("jsonpath", "{.kind}", true)
	require.NoError(t, err, "--template gives the template")
	out.Reset()
	require.NoError(t, Template(&out, p, doc))
	assert.Equal(t, "List", out.String())

	p, _, err = NewTemplatePrinter("jsonpath={.missing}", "", false)
	require.NoError(t, err)
	assert.ErrorContains(t, Template(&out, p, doc), "missing is not found", "--allow-missing-template-keys=false")

	_, ok, err = NewTemplatePrinter("yaml", "", true)
	assert.False(t, ok)
	assert.NoError(t, err)
	_, _, err = NewTemplatePrinter("jsonpath", "", true)
	assert.EqualError(t, err, "-o jsonpath needs a template: -o jsonpath=TEMPLATE or --template TEMPLATE")
	_, _, err = NewTemplatePrinter("go-template={{.kind", "", true)
	assert.ErrorContains(t, err, "-o go-template: error parsing template {{.kind")
	_, _, err = NewTemplatePrinter("jsonpath-file="+filepath.Join(dir, "nothing"), "", true)
	assert.ErrorContains(t, err, "-o jsonpath-file: open ")
}
