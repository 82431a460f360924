package cmd

import (
	"flag"
	"io"
	"strconv"

	"k8s.io/klog/v2"

	"github.com/fedctl/fedctl/pkg/cmdutil"
)

// clientLogVerbosity is the -v level from which client-go's own log lines
// (klog) reach stderr, with the request log: below it a dropped connection
// would print a hundred raw "Unexpected error when reading response body"
// lines for what fedctl reports once, in words, per member.
const clientLogVerbosity = cmdutil.RequestLogVerbosity

// maxClientLogVerbosity caps klog's verbosity: from 8, client-go logs
// every request's and response's body as it is, a Secret's data
// included. fedctl's -v 8 logs the request bodies itself, with Secret
// values redacted (members.Access.RequestBodies).
const maxClientLogVerbosity = cmdutil.RequestBodyVerbosity - 1

// routeClientLogs sends client-go's klog output to errOut at -v 6 and up,
// with klog's own verbosity set to -v (as kubectl's -v sets it) but never
// above maxClientLogVerbosity, and drops it below that.
func routeClientLogs(errOut io.Writer, verbosity int) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	_ = fs.Set("logtostderr", "false")
	_ = fs.Set("alsologtostderr", "false")
	_ = fs.Set("one_output", "true")
	_ = fs.Set("skip_headers", "false")
	// errors too go only where SetOutput says, never straight to os.Stderr
	_ = fs.Set("stderrthreshold", "FATAL")
	if verbosity < clientLogVerbosity {
		_ = fs.Set("v", "0")
		klog.SetOutput(io.Discard)
		return
	}
	_ = fs.Set("v", strconv.Itoa(min(verbosity, maxClientLogVerbosity)))
	klog.SetOutput(errOut)
}
