package cmdutil

import (
	"errors"
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

// AddInputFlags adds kubectl's -k/--kustomize (a kustomization directory,
// instead of -f) and -l/--selector (only the federated objects whose own
// labels match).
func AddInputFlags(cmd *cobra.Command, kustomize, selector *string) {
	cmd.Flags().StringVarP(kustomize, "kustomize", "k", "", "Build the kustomization in this directory and read its output instead of -f")
	cmd.Flags().StringVarP(selector, "selector", "l", "", "Only the federated objects whose labels match this selector (kubectl's syntax: -l app=web,tier!=db)")
	_ = cmd.MarkFlagDirname("kustomize")
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

// CheckInputFlags checks -f and -k: one of them, not both.
func CheckInputFlags(filenames []string, kustomize string) error {
	switch {
	case len(filenames) > 0 && kustomize != "":
		return errors.New("-f and -k cannot be used together")
	case len(filenames) == 0 && kustomize == "":
		return errors.New("-f is required: a file, a directory, an http(s) URL or - for standard input; or -k DIR for a kustomization")
	}
	return nil
}

// CheckPruneSelector refuses --prune with -l: fedctl prunes the objects of
// the ApplySet whose federated objects left the input, and with -l every
// unselected object would look as if it had left. (kubectl's apply --prune
// -l prunes only the objects the selector matches; fedctl does not scope
// pruning that way.)
func CheckPruneSelector(prune bool, selector string) error {
	if prune && selector != "" {
		return fmt.Errorf("--prune cannot be used with -l %s: pruning deletes the objects of the ApplySet whose federated objects are not in the input, and with -l every unselected one would look gone; run --prune without -l", selector)
	}
	return nil
}
