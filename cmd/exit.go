package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/parallel"
)

// Exit codes (see cmdutil.ExitCodeOf).
const (
	ExitOK      = cmdutil.ExitOK
	ExitError   = cmdutil.ExitFailure
	ExitUsage   = cmdutil.ExitUsage
	ExitPartial = cmdutil.ExitPartial
	ExitTimeout = cmdutil.ExitTimeout
)

// Main runs fedctl with the process's arguments and streams and returns the
// exit code. It is the only place where errors become exit codes.
func Main() int {
	// SIGHUP too (a dropped SSH session): a run ends as on Ctrl-C, and
	// what it keeps in temporary files (a rollout gate's kubeconfig) goes.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return Execute(ctx, iostreams.System(), os.Args[0], os.Args[1:])
}

// Execute runs fedctl once with args (without the program's name argv0) on
// ios, and returns the exit code: Main for the process, and for tests
// outside this package that run whole commands (cmd/capi), each call a run
// of its own, with its own Factory.
func Execute(ctx context.Context, ios *iostreams.IOStreams, argv0 string, args []string) (code int) {
	var root *cobra.Command
	defer func() {
		// A panic is a bug in fedctl; say so in one line instead of a stack
		// trace the user cannot act on. The stack, for the report, comes at
		// -v 6 and up. Worker goroutines hand theirs here (parallel.For,
		// parallel.Recover), so that a bug anywhere exits 1, never with Go's
		// status 2 that fedctl uses for usage errors.
		if r := recover(); r != nil {
			reportPanic(ios, r, panicVerbosity(root))
			code = ExitError
		}
	}()
	root = NewRootCmd(ios, argv0)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	var p *parallel.Panic
	if errors.As(err, &p) {
		// a member's goroutine recovered it and the command returned it
		reportPanic(ios, p, panicVerbosity(root))
		return ExitError
	}
	return exitCode(ios, cmd, err)
}

// stackVerbosity is the -v level from which a panic's stack is printed.
const stackVerbosity = 6

// reportPanic prints the one-line report of a bug, and its stack at -v 6
// and up.
func reportPanic(ios *iostreams.IOStreams, r any, verbosity int) {
	p, ok := r.(*parallel.Panic)
	if !ok {
		p = &parallel.Panic{Value: r, Stack: debug.Stack()}
	}
	fmt.Fprintf(ios.ErrOut, "error: internal error: %v\nThis is a bug in fedctl; please report it with the command you ran", p.Value)
	if verbosity < stackVerbosity {
		fmt.Fprintf(ios.ErrOut, " (run it again with -v %d to include the stack).\n", stackVerbosity)
		return
	}
	fmt.Fprintf(ios.ErrOut, " and this stack:\n%s", p.Stack)
}

// panicVerbosity is -v as far as it is known when a panic stops the run:
// the flag, else FEDCTL_V.
func panicVerbosity(root *cobra.Command) int {
	if root != nil {
		if f := root.PersistentFlags().Lookup(cmdutil.FlagVerbosity); f != nil && f.Changed {
			v, _ := strconv.Atoi(f.Value.String())
			return v
		}
	}
	v, _ := strconv.Atoi(os.Getenv("FEDCTL_V"))
	return v
}

// exitCode prints err as its kind is printed and returns its exit code
// (cmdutil.ExitCodeOf).
func exitCode(ios *iostreams.IOStreams, cmd *cobra.Command, err error) int {
	if err == nil {
		return ExitOK
	}
	cs := ios.ErrColorScheme()
	var exitErr *cmdutil.ExitError
	code := cmdutil.ExitCodeOf(err)
	switch {
	case errors.As(err, &exitErr):
		if exitErr.Err != nil && !errors.Is(exitErr.Err, cmdutil.ErrSilent) {
			fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), exitErr.Err)
		}
	case errors.Is(err, cmdutil.ErrSilent):
	case code == ExitPartial:
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), err)
	case errors.Is(err, context.Canceled) && code == ExitError:
		fmt.Fprintf(ios.ErrOut, "%s interrupted\n", cs.Red("error:"))
	case code == ExitUsage:
		fmt.Fprintf(ios.ErrOut, "%s %s\n", cs.Red("error:"), err)
		if cmd != nil {
			fmt.Fprintf(ios.ErrOut, "See '%s --help' for usage.\n", cmd.CommandPath())
		}
	default:
		printError(ios, err) // ExitTimeout too
	}
	return code
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
