package federate

import (
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/cmd/convert"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/manifest"
)

// ExitApproximated is the exit code when the converted output makes the
// other system produce something other than what fedctl renders.
const ExitApproximated = convert.ExitApproximated

// runToKarmada is "fedctl convert --to karmada --verify": the input,
// whatever its dialect, as Karmada's plain manifests and policies, read
// back and compared (exit code 3 when anything differs). -o json prints
// convert's report, the documents among its items. Plain objects, which
// convert refuses, are federated first, as "fedctl federate -f X | fedctl
// federate --to karmada -f -" would: the two halves of federate in one.
func (o *FederateOptions) runToKarmada(cmd *cobra.Command) error {
	docs, err := o.readDocs(cmd.Context())
	if err != nil {
		return err
	}
	federated, read, err := o.federatePlain(docs, true)
	if err != nil {
		return err
	}
	for i, doc := range docs {
		if read[i] {
			continue
		}
		data, err := yaml.Marshal(federated[i])
		if err != nil {
			return err
		}
		// the federated object stands at its plain object's place
		docs[i] = manifest.Document{File: doc.File, Line: doc.Line, Data: data, Kustomization: doc.Kustomization}
	}
	c := &convert.ConvertOptions{IO: o.IO, Federation: o.Federation, Access: o.Access, Docs: docs,
		Namespace: "default", To: "karmada", Output: o.Output, Verify: true}
	return c.Run(cmd.Context())
}

// report prints the compilation's notes and mismatches on stderr and
// returns exit code 3 when anything is not exact.
func (o *FederateOptions) report(notes []export.Note, mismatches []string) error {
	return convert.WriteNotes(o.IO, "KubeFed", notes, mismatches)
}
