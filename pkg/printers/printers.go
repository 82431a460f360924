package printers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"
)

// CheckFormat returns an error naming the allowed values when format is not
// one of them. An empty format is always allowed (the default table).
func CheckFormat(format string, allowed ...string) error {
	if format == "" || slices.Contains(allowed, format) {
		return nil
	}
	return fmt.Errorf("--output must be one of %s, got %q", strings.Join(allowed, ", "), format)
}

// Table collects rows and writes them aligned.
type Table struct {
	headers []string
	rows    [][]string
}

// NewTable starts a table with the given column headers.
func NewTable(headers ...string) *Table { return &Table{headers: headers} }

// AddRow adds one row; missing cells print as empty.
func (t *Table) AddRow(cells ...string) { t.rows = append(t.rows, cells) }

// Write prints the table. Empty cells are printed as "<none>" like kubectl,
// so that awk sees every column.
func (t *Table) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, strings.Join(t.headers, "\t"))
	for _, r := range t.rows {
		cells := make([]string, len(t.headers))
		for i := range cells {
			cells[i] = "<none>"
			if i < len(r) && r[i] != "" {
				cells[i] = r[i]
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// YAML writes v as YAML with sorted keys.
func YAML(w io.Writer, v any) error {
	data, err := yaml.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode YAML: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// JSON writes v as indented JSON followed by a newline, as kubectl -o json.
func JSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "    ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// Documents writes objects as a YAML stream, "---" between them, in the
// bytes sigs.k8s.io/yaml gives, with render's faster encoder (convert
// writes thousands).
func Documents(w io.Writer, docs []map[string]any) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	s := sharedMaps(nil, 0)
	var data []byte
	for i, d := range docs {
		var err error
		if data, err = appendYAML(data[:0], d, s); err != nil {
			return fmt.Errorf("encode YAML: %w", err)
		}
		if i > 0 {
			bw.WriteString("---\n")
		}
		bw.Write(data)
	}
	return bw.Flush()
}

// EncodeYAML is one object as Documents writes it.
func EncodeYAML(obj map[string]any) ([]byte, error) {
	data, err := appendYAML(nil, obj, sharedMaps(nil, 0))
	if err != nil {
		return nil, fmt.Errorf("encode YAML: %w", err)
	}
	return data, nil
}
