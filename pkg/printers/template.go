package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	cliprinters "k8s.io/cli-runtime/pkg/printers"
)

// Template prints v, the document -o json prints, through one of
// cli-runtime's template printers (-o jsonpath=..., -o go-template=...),
// so that a template addresses exactly the fields -o json shows.
func Template(w io.Writer, p cliprinters.ResourcePrinter, v any) error {
	doc, err := Document(v)
	if err != nil {
		return err
	}
	return p.PrintObj(&unstructured.Unstructured{Object: doc}, w)
}

// Document is v as the generic JSON document -o json prints, with
// integers as int64 as in an unstructured object (kubectl's jsonpath
// prints 1000680000, not 1.00068e+09).
func Document(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	var doc map[string]any
	if err := utiljson.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	return doc, nil
}

// TemplateFormats are the -o formats of kubectl's template printers; the
// -file forms and templatefile read the template from a file.
var TemplateFormats = []string{"go-template", "go-template-file", "template", "templatefile", "jsonpath", "jsonpath-as-json", "jsonpath-file"}

// NewTemplatePrinter returns cli-runtime's printer for -o FORMAT=TEMPLATE
// (or -o FORMAT with --template TEMPLATE), as kubectl parses them; ok is
// false when output is not a template format. allowMissingKeys is
// --allow-missing-template-keys.
func NewTemplatePrinter(output, template string, allowMissingKeys bool) (p cliprinters.ResourcePrinter, ok bool, err error) {
	format, value, hasValue := strings.Cut(output, "=")
	if !slices.Contains(TemplateFormats, format) {
		return nil, false, nil
	}
	if template != "" {
		value, hasValue = template, true
	}
	if !hasValue || value == "" {
		return nil, true, fmt.Errorf("-o %s needs a template: -o %s=TEMPLATE or --template TEMPLATE", format, format)
	}
	if strings.HasSuffix(format, "file") {
		data, err := os.ReadFile(value)
		if err != nil {
			return nil, true, fmt.Errorf("-o %s: %w", format, err)
		}
		value = string(data)
	}
	if strings.HasPrefix(format, "jsonpath") {
		jp, err := cliprinters.NewJSONPathPrinter(value)
		if err != nil {
			return nil, true, fmt.Errorf("-o %s: error parsing jsonpath %s, %w", format, value, err)
		}
		jp.AllowMissingKeys(allowMissingKeys)
		jp.EnableJSONOutput(format == "jsonpath-as-json")
		return jp, true, nil
	}
	gt, err := cliprinters.NewGoTemplatePrinter([]byte(value))
	if err != nil {
		return nil, true, fmt.Errorf("-o %s: error parsing template %s, %w", format, value, err)
	}
	gt.AllowMissingKeys(allowMissingKeys)
	return gt, true, nil
}
