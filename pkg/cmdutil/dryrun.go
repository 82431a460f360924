package cmdutil

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// The --dry-run strategies, as kubectl names them.
const (
	DryRunNone   = "none"
	DryRunClient = "client"
	DryRunServer = "server"
)

// dryRunUnchanged is what a bare --dry-run sets (kubectl's NoOptDefVal).
const dryRunUnchanged = "unchanged"

// DryRunDeprecation is the warning kubectl prints for a bare --dry-run and
// for --dry-run=true.
const DryRunDeprecation = "--dry-run is deprecated and can be replaced with --dry-run=client."

// AddDryRunFlag adds kubectl's --dry-run=none|client|server to cmd, with
// usage saying what each strategy does for this command. A bare --dry-run
// parses; ParseDryRun turns it into client.
func AddDryRunFlag(cmd *cobra.Command, target *string, usage string) {
	cmd.Flags().StringVar(target, "dry-run", DryRunNone, usage)
	cmd.Flags().Lookup("dry-run").NoOptDefVal = dryRunUnchanged
	_ = cmd.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{DryRunNone, DryRunClient, DryRunServer}, cobra.ShellCompDirectiveNoFileComp))
}

// ParseDryRun is kubectl's GetDryRunStrategy: none, client or server; a bare
// --dry-run and --dry-run=true mean client, with kubectl's deprecation
// warning on warnings; false means none. Anything else is a usage error
// (exit 2) naming the allowed values.
func ParseDryRun(warnings io.Writer, value string) (string, error) {
	switch value {
	case "", DryRunNone, "false":
		return DryRunNone, nil
	case DryRunClient, DryRunServer:
		return value, nil
	case dryRunUnchanged, "true":
		if warnings != nil {
			fmt.Fprintf(warnings, "warning: %s\n", DryRunDeprecation)
		}
		return DryRunClient, nil
	}
	return "", FlagErrorf("invalid --dry-run value %q: must be %q, %q or %q", value, DryRunNone, DryRunClient, DryRunServer)
}

// IsDryRun says whether strategy writes nothing: client or server. For a
// command that only writes the federation file (join, unjoin, label,
// enable, disable), both mean the same: nothing is written.
func IsDryRun(strategy string) bool {
	return strategy == DryRunClient || strategy == DryRunServer
}
