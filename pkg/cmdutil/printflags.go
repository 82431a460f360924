package cmdutil

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	cliprinters "k8s.io/cli-runtime/pkg/printers"

	"github.com/fedctl/fedctl/pkg/printers"
)

// PrintFlags are kubectl get's output flags, for the commands that print
// tables of objects (get clusters, get TYPE, status): -o with the
// command's own formats plus cli-runtime's jsonpath and go-template
// printers and kubectl's custom-columns, --template,
// --allow-missing-template-keys, --no-headers, --show-labels, -L and
// --sort-by.
type PrintFlags struct {
	Output       string
	NoHeaders    bool
	ShowLabels   bool
	ColumnLabels []string
	SortBy       string
	// Template is --template, the template of a template format given
	// without one; AllowMissingKeys is --allow-missing-template-keys.
	Template         string
	AllowMissingKeys bool

	// own are the command's own formats besides the table: wide, yaml, json, name.
	own []string
	// Set by Validate.
	template cliprinters.ResourcePrinter
	columns  []printers.CustomColumn
}

// customColumnsFormats are kubectl's two ways to give custom columns.
var customColumnsFormats = []string{"custom-columns", "custom-columns-file"}

// NewPrintFlags returns the flags of a command whose own -o formats are own.
func NewPrintFlags(own ...string) *PrintFlags {
	return &PrintFlags{own: own, AllowMissingKeys: true}
}

// AddFlags adds the flags to cmd; usage names the command's own formats.
func (f *PrintFlags) AddFlags(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringVarP(&f.Output, "output", "o", "", fmt.Sprintf("Output format: %s, %s, custom-columns=SPEC or custom-columns-file=FILE",
		strings.Join(f.own, ", "), strings.Join(printers.TemplateFormats, "|")+"=TEMPLATE"))
	fl.BoolVar(&f.NoHeaders, "no-headers", false, "Do not print the table headers (tables and custom-columns)")
	fl.BoolVar(&f.ShowLabels, "show-labels", false, "Add a LABELS column with all labels (tables)")
	fl.StringSliceVarP(&f.ColumnLabels, "label-columns", "L", nil, "Add a column for each of these labels (tables; repeatable or comma-separated)")
	fl.StringVar(&f.SortBy, "sort-by", "", "Sort the rows by this JSONPath expression, e.g. '{.metadata.name}' (tables and custom-columns)")
	fl.StringVar(&f.Template, "template", "", "The template (or its file, for the -file formats) of -o go-template, jsonpath and their -file forms")
	fl.BoolVar(&f.AllowMissingKeys, "allow-missing-template-keys", true, "Ignore a field or map key a template names that is missing (templates only)")
	_ = cmd.MarkFlagFilename("template")
	formats := append(slices.Clone(f.own), customColumnsFormats...)
	formats = append(formats, printers.TemplateFormats...)
	_ = cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
}

// Validate checks -o and the table flags, and compiles the template or
// the custom columns, before any member is read.
func (f *PrintFlags) Validate() error {
	format, arg, _ := strings.Cut(f.Output, "=")
	switch {
	case f.Output == "" || slices.Contains(f.own, f.Output):
	case format == "custom-columns":
		cols, err := printers.ParseCustomColumns(arg)
		if err != nil {
			return err
		}
		f.columns = cols
	case format == "custom-columns-file":
		data, err := os.ReadFile(arg)
		if err != nil {
			return fmt.Errorf("-o custom-columns-file: %w", err)
		}
		cols, err := printers.ParseCustomColumnsFile(arg, data)
		if err != nil {
			return err
		}
		f.columns = cols
	default:
		p, ok, err := printers.NewTemplatePrinter(f.Output, f.Template, f.AllowMissingKeys)
		if !ok {
			return fmt.Errorf("--output must be one of %s, custom-columns=SPEC, custom-columns-file=FILE, or %s=TEMPLATE; got %q",
				strings.Join(f.own, ", "), strings.Join(printers.TemplateFormats, "|"), f.Output)
		}
		if err != nil {
			return err
		}
		f.template = p
	}
	if f.Template != "" && f.template == nil {
		return fmt.Errorf("--template needs a template format: -o go-template, jsonpath or one of their -file forms")
	}
	if f.SortBy != "" {
		if _, err := printers.ParseJSONPath("--sort-by", f.SortBy); err != nil {
			return err
		}
	}
	type flag struct {
		name string
		set  bool
	}
	if !f.IsTable() && f.columns == nil {
		for _, fl := range []flag{{"--no-headers", f.NoHeaders}, {"--sort-by", f.SortBy != ""}} {
			if fl.set {
				return fmt.Errorf("%s applies to tables and custom-columns, not to -o %s", fl.name, format)
			}
		}
	}
	if !f.IsTable() {
		for _, fl := range []flag{{"--show-labels", f.ShowLabels}, {"-L/--label-columns", len(f.ColumnLabels) > 0}} {
			if fl.set {
				return fmt.Errorf("%s applies to tables (the default output and -o wide), not to -o %s", fl.name, format)
			}
		}
	}
	return nil
}

// IsTable says whether the output is the human-readable table ("" or wide).
func (f *PrintFlags) IsTable() bool { return f.Output == "" || f.Output == "wide" }

// CustomColumns are the columns of -o custom-columns, or nil.
func (f *PrintFlags) CustomColumns() []printers.CustomColumn { return f.columns }

// TableOptions are the table flags for the printer; colors colour
// columns by header on a terminal (nil elsewhere).
func (f *PrintFlags) TableOptions(colors map[string]func(string) string) printers.TableOptions {
	return printers.TableOptions{
		NoHeaders: f.NoHeaders, Wide: f.Output == "wide", ShowLabels: f.ShowLabels,
		ColumnLabels: f.ColumnLabels, SortBy: f.SortBy, Colors: colors,
	}
}

// PrintData prints v, the command's -o json document, when -o asks for
// yaml, json or a template, and says whether it did; tables, custom
// columns and names are the command's own to print.
func (f *PrintFlags) PrintData(w io.Writer, v any) (bool, error) {
	switch {
	case f.Output == "yaml":
		return true, printers.YAML(w, v)
	case f.Output == "json":
		return true, printers.JSON(w, v)
	case f.template != nil:
		return true, printers.Template(w, f.template, v)
	}
	return false, nil
}
