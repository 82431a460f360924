package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
)

// Exit codes. diff uses its own (0 same, 1 different, >1 error), through
// cmdutil.ExitError.
const (
	ExitOK      = 0
	ExitError   = 1
	ExitUsage   = 2
	ExitPartial = 3
)

// Main runs fedctl with the process's arguments and streams and returns the
// exit code. It is the only place where errors become exit codes.
func Main() (code int) {
	ios := iostreams.System()
	defer func() {
		// A panic is a bug in fedctl; say so in one line instead of a stack
		// trace the user cannot act on.
		if r := recover(); r != nil {
			fmt.Fprintf(ios.ErrOut, "error: internal error: %v\nThis is a bug in fedctl; please report it with the command you ran.\n", r)
			code = ExitError
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := NewRootCmd(ios, os.Args[0])
	cmd, err := root.ExecuteContextC(ctx)
	return exitCode(ios, cmd, err)
}

// usagePrefixes are the messages cobra uses for usage errors it raises
// itself, before any fedctl code runs.
var usagePrefixes = []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "if any flags in the group", "accepts ", "requires at least", "invalid argument"}

func exitCode(ios *iostreams.IOStreams, cmd *cobra.Command, err error) int {
	if err == nil {
		return ExitOK
	}
	cs := ios.ErrColorScheme()
	var exitErr *cmdutil.ExitError
	var partial *cmdutil.PartialError
	var flagErr *cmdutil.FlagError
	switch {
	case errors.As(err, &exitErr):
		if exitErr.Err != nil && !errors.Is(exitErr.Err, cmdutil.ErrSilent) {
			fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), exitErr.Err)
		}
		return exitErr.Code
	case errors.Is(err, cmdutil.ErrSilent):
		return ExitError
	case errors.As(err, &partial):
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), err)
		return ExitPartial
	case errors.Is(err, context.Canceled):
		fmt.Fprintf(ios.ErrOut, "%s interrupted\n", cs.Red("error:"))
		return ExitError
	case errors.As(err, &flagErr) || isCobraUsageError(err):
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), err)
		if cmd != nil {
			fmt.Fprintf(ios.ErrOut, "See '%s --help' for usage.\n", cmd.CommandPath())
		}
		return ExitUsage
	}
	printError(ios, err)
	return ExitError
}

// printError prints err as "error: ..." lines; each error of a joined list
// (every problem in the input, say) gets its own line.
func printError(ios *iostreams.IOStreams, err error) {
	cs := ios.ErrColorScheme()
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range joined.Unwrap() {
			printError(ios, e)
		}
		return
	}
	fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), err)
}

func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range usagePrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
