package printers

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	cliprinters "k8s.io/cli-runtime/pkg/printers"
)

// ObjectTable is a table whose rows stand for objects, printed by
// cli-runtime's table printer so that kubectl's table flags (--no-headers,
// --show-labels, -L, --sort-by, -o wide, custom-columns) behave as they do
// in kubectl get.
type ObjectTable struct {
	// Columns are the columns; a Priority above 0 shows only with Wide.
	// Names are printed upper case.
	Columns []metav1.TableColumnDefinition
	Rows    []ObjectRow
}

// ObjectRow is one row: its cells, the labels that -L and --show-labels
// show, and the document that --sort-by reads (what -o json prints for
// the row, or the member object).
type ObjectRow struct {
	Cells  []any
	Labels map[string]string
	Doc    map[string]any
}

// TableOptions are kubectl's table flags.
type TableOptions struct {
	NoHeaders    bool
	Wide         bool
	ShowLabels   bool
	ColumnLabels []string
	// SortBy is a JSONPath expression (kubectl's --sort-by, "{}" optional)
	// evaluated on each row's Doc; rows keep their order otherwise.
	SortBy string
	// Colors colours the cells of the named columns (upper-case headers).
	// It is applied after alignment, because cli-runtime escapes control
	// characters in cells; with NoHeaders no column can be found and
	// nothing is coloured.
	Colors map[string]func(string) string
}

// Write prints t. Empty cells print as "<none>" as in fedctl's other
// tables, so that awk sees every column; a table without rows prints
// nothing, as kubectl's printer does.
func (t *ObjectTable) Write(w io.Writer, opts TableOptions) error {
	rows := t.Rows
	if opts.SortBy != "" {
		var err error
		if rows, err = SortRows(rows, opts.SortBy); err != nil {
			return err
		}
	}
	table := &metav1.Table{ColumnDefinitions: make([]metav1.TableColumnDefinition, len(t.Columns))}
	for i, c := range t.Columns {
		c.Name = strings.ReplaceAll(strings.ToUpper(c.Name), " ", "-")
		if c.Type == "" {
			c.Type = "string"
		}
		table.ColumnDefinitions[i] = c
	}
	table.Rows = make([]metav1.TableRow, len(rows))
	for i, r := range rows {
		cells := make([]any, len(t.Columns))
		for j := range cells {
			cells[j] = "<none>"
			if j < len(r.Cells) {
				if s := FormatCell(r.Cells[j]); s != "" {
					cells[j] = s
				}
			}
		}
		table.Rows[i] = metav1.TableRow{Cells: cells, Object: runtime.RawExtension{
			Object: &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Labels: r.Labels}},
		}}
	}
	p := cliprinters.NewTablePrinter(cliprinters.PrintOptions{
		NoHeaders: opts.NoHeaders, Wide: opts.Wide, ShowLabels: opts.ShowLabels, ColumnLabels: opts.ColumnLabels,
	})
	if len(opts.Colors) == 0 || opts.NoHeaders {
		return p.PrintObj(table, w)
	}
	var buf bytes.Buffer
	if err := p.PrintObj(table, &buf); err != nil {
		return err
	}
	_, err := w.Write(colorColumns(buf.Bytes(), opts.Colors))
	return err
}

// colorColumns colours, in an aligned table whose first line is the
// header, the cells under the named headers. The columns are found from
// the header line: each header is one word (spaces are replaced by "-")
// and a column runs from its header to the next one. Widths count runes,
// as the tab writer does.
func colorColumns(text []byte, colors map[string]func(string) string) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	if len(lines) < 2 {
		return text
	}
	type span struct {
		start, end int
		color      func(string) string
	}
	header := []rune(strings.TrimRight(lines[0], "\n"))
	var spans []span
	for i := 0; i < len(header); {
		if header[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(header) && header[j] != ' ' {
			j++
		}
		name := string(header[i:j])
		if len(spans) > 0 {
			spans[len(spans)-1].end = i
		}
		spans = append(spans, span{start: i, end: -1, color: colors[name]})
		i = j
	}
	var out strings.Builder
	out.Grow(len(text) + 16*len(lines))
	out.WriteString(lines[0])
	for _, line := range lines[1:] {
		body := strings.TrimSuffix(line, "\n")
		runes := []rune(body)
		last := 0
		for _, s := range spans {
			if s.color == nil || s.start >= len(runes) {
				continue
			}
			end := s.end
			if end < 0 || end > len(runes) {
				end = len(runes)
			}
			cell := string(runes[s.start:end])
			word := strings.TrimRight(cell, " ")
			out.WriteString(string(runes[last:s.start]))
			out.WriteString(s.color(word))
			out.WriteString(cell[len(word):])
			last = end
		}
		out.WriteString(string(runes[last:]))
		if len(body) < len(line) {
			out.WriteByte('\n')
		}
	}
	return []byte(out.String())
}

// FormatCell prints a table cell as kubectl does: JSON numbers that are
// whole print without a fraction, nil as empty.
func FormatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return strconv.FormatInt(int64(x), 10)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
