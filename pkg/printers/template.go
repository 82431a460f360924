package printers

import (
	"encoding/json"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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

// Document is v as the generic JSON document -o json prints.
func Document(v any) (map[string]any, error) {
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode JSON: %w", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("decode JSON: %w", err)
	}
	return doc, nil
}
