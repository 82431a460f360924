package convert

import (
	"fmt"
	"slices"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/printers"
)

// Report is what a conversion says: -o json prints it on stdout, and the
// human form goes to stderr.
type Report struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// To is the system converted for: karmada or argocd.
	To string `json:"to"`
	// OutputDir and Files are where the output went, with --output-dir.
	OutputDir string   `json:"outputDir,omitempty"`
	Files     []string `json:"files,omitempty"`
	// Items are the converted documents, without --output-dir.
	Items []map[string]any `json:"items,omitempty"`
	// Approximated are the constructs the other system cannot express
	// exactly: any makes the exit code 3.
	Approximated []export.Note `json:"approximated"`
	// Notes inform: the other system makes the same member objects.
	Notes []export.Note `json:"notes"`
	// Verified is set by --verify: whether the output, read back, renders
	// as the input does; Differences says where not.
	Verified    *bool    `json:"verified,omitempty"`
	Differences []string `json:"differences,omitempty"`
	// Clusters are the commands that register each member with the other
	// system, under the name the output uses.
	Clusters []Registration `json:"clusters"`
}

// Registration is one member's registration with the other system.
type Registration struct {
	Member  string `json:"member"`
	Name    string `json:"name"`
	Command string `json:"command"`
}

// newReport sorts the notes into exact ones and approximations; notes about
// the federation file name it by its path, fedFile, when known.
func newReport(to string, notes []export.Note, fedFile string) *Report {
	r := &Report{APIVersion: "fedctl.io/v1alpha1", Kind: "ConversionReport", To: to, Approximated: []export.Note{}, Notes: []export.Note{}}
	for _, n := range notes {
		if n.Where == export.FederationFile && fedFile != "" {
			n.Where = fedFile
		}
		if n.Exact {
			r.Notes = append(r.Notes, n)
		} else {
			r.Approximated = append(r.Approximated, n)
		}
	}
	return r
}

// finish prints the documents (yaml, without --output-dir) or the report
// (json) on stdout, the notes, differences and registration commands on
// stderr, and returns exit code 3 when anything is not exact.
func (o *ConvertOptions) finish(rep *Report, docs []map[string]any, register string) error {
	switch {
	case o.Output == "json":
		if err := printers.JSON(o.IO.Out, rep); err != nil {
			return err
		}
	case o.OutputDir == "":
		if err := printers.Documents(o.IO.Out, docs); err != nil {
			return err
		}
	}
	cs := o.IO.ErrColorScheme()
	if rep.Verified != nil && *rep.Verified {
		fmt.Fprintf(o.IO.ErrOut, "%s verified: read back as %s input, the output renders every member object as the input does\n", cs.SuccessIcon(), rep.To)
	}
	if len(rep.Clusters) > 0 {
		fmt.Fprintf(o.IO.ErrOut, "Register the members with %s:\n", register)
		for _, c := range rep.Clusters {
			fmt.Fprintf(o.IO.ErrOut, "  %s\n", c.Command)
		}
	}
	return WriteNotes(o.IO, systemName[rep.To], append(slices.Clone(rep.Notes), rep.Approximated...), rep.Differences)
}

// systemName is how messages name each system convert writes for.
var systemName = map[string]string{"karmada": "Karmada", "argocd": "Argo CD"}

// WriteNotes prints a conversion's notes on stderr, "note:" for those that
// only inform and a warning for the rest, then the member objects that
// differ when read back, and returns exit code 3 (ExitApproximated) when
// any construct is not exact: system (as users name it) would make
// something else.
func WriteNotes(ios *iostreams.IOStreams, system string, notes []export.Note, differences []string) error {
	cs := ios.ErrColorScheme()
	approximated := len(differences)
	for _, n := range notes {
		if n.Exact {
			fmt.Fprintf(ios.ErrOut, "note: %s\n", n)
			continue
		}
		approximated++
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.WarningIcon(), n)
	}
	for _, d := range differences {
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.WarningIcon(), d)
	}
	if approximated > 0 {
		return &cmdutil.ExitError{Code: ExitApproximated, Err: fmt.Errorf("%d construct(s) could not be converted exactly; %s would differ as listed above", approximated, system)}
	}
	return nil
}
