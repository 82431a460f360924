// Package version implements "fedctl version".
package version

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/printers"
)

// VersionOptions are the inputs of "fedctl version".
type VersionOptions struct {
	IO     *iostreams.IOStreams
	Build  cmdutil.BuildInfo
	Output string
}

// NewCmdVersion returns the version command. runF, when set, replaces Run.
func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	opts := &VersionOptions{IO: f.IOStreams, Build: f.Build}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of fedctl",
		Example: `  # Print the version
  fedctl version

  # Print version, commit, build date and platform as JSON
  fedctl version -o json`,
		Args: cmdutil.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := printers.CheckFormat(opts.Output, "json", "yaml"); err != nil {
				return cmdutil.FlagErrorWrap(err)
			}
			if runF != nil {
				return runF(opts)
			}
			return opts.Run()
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "Output format: json or yaml")
	return cmd
}

// Run prints the build information.
func (o *VersionOptions) Run() error {
	switch o.Output {
	case "json":
		return printers.JSON(o.IO.Out, o.Build)
	case "yaml":
		return printers.YAML(o.IO.Out, o.Build)
	}
	b := o.Build
	commit := b.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if commit == "" {
		commit = "unknown"
	}
	_, err := fmt.Fprintf(o.IO.Out, "fedctl %s (commit %s, built %s, %s %s)\n", b.Version, commit, orUnknown(b.Date), b.GoVersion, b.Platform)
	return err
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
