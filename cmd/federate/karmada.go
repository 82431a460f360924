package federate

import (
	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/cmd/convert"
	"github.com/fedctl/fedctl/pkg/export"
)

// ExitApproximated is the exit code when the converted output makes the
// other system produce something other than what fedctl renders.
const ExitApproximated = convert.ExitApproximated

// runToKarmada is "fedctl convert --to karmada --verify": the input,
// whatever its dialect, as Karmada's plain manifests and policies, read
// back and compared (exit code 3 when anything differs). -o json prints
// convert's report, the documents among its items.
func (o *FederateOptions) runToKarmada(cmd *cobra.Command) error {
	c := &convert.ConvertOptions{IO: o.IO, Federation: o.Federation, Access: o.Access, Filenames: o.Filenames, Recursive: o.Recursive, Kustomize: o.Kustomize,
		Namespace: "default", To: "karmada", Output: o.Output, Verify: true}
	return c.Run(cmd.Context())
}

// report prints the compilation's notes and mismatches on stderr and
// returns exit code 3 when anything is not exact.
func (o *FederateOptions) report(notes []export.Note, mismatches []string) error {
	return convert.WriteNotes(o.IO, "KubeFed", notes, mismatches)
}
