package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/fedctl/fedctl/pkg/status"
)

// FlagError is a usage error: bad flags or arguments. It exits with 2 and
// points at --help.
type FlagError struct{ Err error }

func (e *FlagError) Error() string { return e.Err.Error() }
func (e *FlagError) Unwrap() error { return e.Err }

// FlagErrorf returns a FlagError with a formatted message.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{Err: fmt.Errorf(format, args...)}
}

// FlagErrorWrap marks err as a usage error; nil stays nil.
func FlagErrorWrap(err error) error {
	if err == nil {
		return nil
	}
	return &FlagError{Err: err}
}

// ErrSilent means the command already explained the failure; only the exit
// code (1) is left to set.
var ErrSilent = errors.New("silent error")

// PartialError means some member clusters failed while the others
// succeeded; the command printed which, and the exit code is 3.
type PartialError struct {
	Failed []string // names of the failed members, sorted
	// Says, when set, how they failed, in place of "failed".
	Says string
}

func (e *PartialError) Error() string {
	if e.Says != "" {
		return e.Says
	}
	return fmt.Sprintf("%d member cluster(s) failed: %s", len(e.Failed), strings.Join(e.Failed, ", "))
}

// AllFailedError is a command on member clusters that could do nothing in
// any of them: exit 1, even when a wait also timed out (it waited on
// none).
type AllFailedError struct{ Err error }

func (e *AllFailedError) Error() string { return e.Err.Error() }
func (e *AllFailedError) Unwrap() error { return e.Err }

// MembersError is the error of a command on member clusters: nil when
// none of them (sorted) failed, an AllFailedError (exit 1) when nothing
// could be done anywhere, else a PartialError (exit 3): some members, or
// some objects in them, failed while the rest was done.
func MembersError(failed []string, nothingDone bool) error {
	switch {
	case len(failed) == 0:
		return nil
	case nothingDone:
		return &AllFailedError{Err: fmt.Errorf("every member cluster failed: %s", strings.Join(failed, ", "))}
	}
	return &PartialError{Failed: failed}
}

// ExitError carries an explicit exit code, for commands such as diff whose
// codes differ from the usual ones. Err, when set, is printed.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// TimeoutError is a wait that ran out of time (apply --wait, status
// --wait): exit 4, so that a pipeline can tell "not ready yet" from
// "broken" (1) and "some members failed" (3).
type TimeoutError struct{ Err error }

func (e *TimeoutError) Error() string { return e.Err.Error() }
func (e *TimeoutError) Unwrap() error { return e.Err }

// WaitError marks the error of status.Wait that says it timed out as a
// TimeoutError; any other error is returned as it is.
func WaitError(err error) error {
	var nr *status.NotReadyError
	if errors.As(err, &nr) && nr.TimedOut {
		return &TimeoutError{Err: err}
	}
	return err
}

// Exit codes. diff uses its own (0 same, 1 different, >1 error), through
// ExitError. When a run both had members fail and timed out waiting, 3
// wins: the wait covered only the members that were done.
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
	ExitPartial = 3
	ExitTimeout = 4 // a wait (--wait) ran out of time
)

// ExitCodeOf is the exit code of the error a command returned, as
// cmd.Main gives it (a bug's panic, which only cmd.Main sees, aside).
func ExitCodeOf(err error) int {
	var exitErr *ExitError
	var partial *PartialError
	var allFailed *AllFailedError
	var flagErr *FlagError
	var timeout *TimeoutError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &exitErr):
		return exitErr.Code
	case errors.Is(err, ErrSilent):
		return ExitFailure
	case errors.As(err, &allFailed):
		return ExitFailure // the DNS step's partial failure of the same dead members included
	case errors.As(err, &partial):
		return ExitPartial
	case errors.As(err, &timeout):
		return ExitTimeout
	case errors.Is(err, context.Canceled):
		return ExitFailure
	case errors.As(err, &flagErr), cobraUsageError(err):
		return ExitUsage
	}
	return ExitFailure
}

// usagePrefixes begin the messages of the usage errors cobra raises
// itself, before any fedctl code runs (an unknown flag, a missing
// argument), which reach ExitCodeOf unmarked.
var usagePrefixes = []string{"unknown command", "unknown flag", "unknown shorthand flag", "required flag", "if any flags in the group", "accepts ", "requires at least", "invalid argument"}

func cobraUsageError(err error) bool {
	msg := err.Error()
	for _, p := range usagePrefixes {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
