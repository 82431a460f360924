package cmdutil

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/manifest"
)

// AddFilenameFlags adds kubectl's -f/--filename (repeatable; a file, a
// directory or - for standard input) and -R/--recursive.
func AddFilenameFlags(cmd *cobra.Command, filenames *[]string, recursive *bool) {
	cmd.Flags().StringSliceVarP(filenames, "filename", "f", nil, "File, directory or - (standard input) holding federated objects (repeatable)")
	cmd.Flags().BoolVarP(recursive, "recursive", "R", false, "Read the directories given with -f recursively")
	_ = cmd.MarkFlagFilename("filename", "yaml", "yml", "json")
}

// PrintWarnings prints warnings on stderr, one per line, as kubectl prints
// the API server's: "Warning: file:line: object: message".
func PrintWarnings(ios *iostreams.IOStreams, warnings []*manifest.Error) {
	cs := ios.ErrColorScheme()
	for _, w := range warnings {
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Yellow("Warning:"), w)
	}
}

// AddAllowEmptyFlag adds --allow-empty: a run with nothing to do (no
// members, no federated objects in -f, a named federation file that does
// not exist) is an error without it.
func AddAllowEmptyFlag(cmd *cobra.Command, allow *bool) {
	cmd.Flags().BoolVar(allow, "allow-empty", false, "Accept a run with nothing to do: no member clusters, or no federated objects in -f")
}
