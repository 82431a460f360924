package printers

import (
	"bufio"
	"bytes"
	"fmt"
	"reflect"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/jsonpath"
)

// CustomColumn is one column of kubectl's -o custom-columns: a header and
// the JSONPath of its value in each row's document.
type CustomColumn struct {
	Header string
	Path   string
	parsed *jsonpath.JSONPath
}

// ParseCustomColumns reads kubectl's custom-columns specification,
// "HEADER:PATH,HEADER:PATH" (-o custom-columns=SPEC).
func ParseCustomColumns(spec string) ([]CustomColumn, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("custom-columns format specified but no custom columns given; e.g. -o custom-columns=NAME:.metadata.name")
	}
	var cols []CustomColumn
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok || header == "" || path == "" {
			return nil, fmt.Errorf("custom-columns: %q is not HEADER:PATH, e.g. NAME:.metadata.name", part)
		}
		col, err := newCustomColumn(header, path)
		if err != nil {
			return nil, err
		}
		cols = append(cols, col)
	}
	return cols, nil
}

// ParseCustomColumnsFile reads kubectl's custom-columns-file: a line of
// headers and a line of paths, separated by white space.
func ParseCustomColumnsFile(name string, data []byte) ([]CustomColumn, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	var lines [][]string
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) > 0 {
			lines = append(lines, f)
		}
	}
	if len(lines) != 2 {
		return nil, fmt.Errorf("custom-columns-file %s: want two lines, the headers and their paths, got %d", name, len(lines))
	}
	if len(lines[0]) != len(lines[1]) {
		return nil, fmt.Errorf("custom-columns-file %s: %d headers but %d paths", name, len(lines[0]), len(lines[1]))
	}
	cols := make([]CustomColumn, len(lines[0]))
	for i := range cols {
		col, err := newCustomColumn(lines[0][i], lines[1][i])
		if err != nil {
			return nil, fmt.Errorf("custom-columns-file %s: %w", name, err)
		}
		cols[i] = col
	}
	return cols, nil
}

func newCustomColumn(header, path string) (CustomColumn, error) {
	p, err := ParseJSONPath("custom-columns "+header, path)
	if err != nil {
		return CustomColumn{}, err
	}
	return CustomColumn{Header: header, Path: path, parsed: p}, nil
}

// CustomColumnsTable builds the table of cols over docs, one row per
// document, after the fixed leading columns lead (fedctl's CLUSTER) whose
// cells leadCells gives. A path that finds nothing prints <none>; several
// values are joined with commas, as kubectl prints them.
func CustomColumnsTable(cols []CustomColumn, lead []string, docs []map[string]any, leadCells func(i int) []any, labels func(i int) map[string]string) *ObjectTable {
	t := &ObjectTable{}
	for _, h := range lead {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: h})
	}
	for _, c := range cols {
		t.Columns = append(t.Columns, metav1.TableColumnDefinition{Name: c.Header})
	}
	for i, doc := range docs {
		var cells []any
		if leadCells != nil {
			cells = append(cells, leadCells(i)...)
		}
		for _, c := range cols {
			cells = append(cells, columnValue(c.parsed, doc))
		}
		row := ObjectRow{Cells: cells, Doc: doc}
		if labels != nil {
			row.Labels = labels(i)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func columnValue(p *jsonpath.JSONPath, doc map[string]any) string {
	results, err := p.FindResults(doc)
	if err != nil {
		return ""
	}
	var values []string
	for _, r := range results {
		for _, v := range r {
			for v.Kind() == reflect.Interface && !v.IsNil() {
				v = v.Elem()
			}
			if !v.IsValid() || (v.Kind() == reflect.Interface && v.IsNil()) {
				continue
			}
			values = append(values, FormatCell(v.Interface()))
		}
	}
	return strings.Join(values, ",")
}
