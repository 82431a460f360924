package cmd

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/parallel"
)

// TestReportPanic: a bug is one line with the next step, and its stack
// only from -v 6, whether it happened on the main goroutine or a worker's.
func TestReportPanic(t *testing.T) {
	t.Parallel()
	worker := &parallel.Panic{Value: "index out of range", Stack: []byte("goroutine 7 [running]:\nworker.go:12\n")}
	for _, tc := range []struct {
		name      string
		r         any
		verbosity int
		want      string
	}{
		{"worker, quiet", worker, 0, "error: internal error: index out of range\nThis is a bug in fedctl; please report it with the command you ran (run it again with -v 6 to include the stack).\n"},
		{"worker, -v 6", worker, 6, "error: internal error: index out of range\nThis is a bug in fedctl; please report it with the command you ran and this stack:\ngoroutine 7 [running]:\nworker.go:12\n"},
		{"main goroutine, quiet", "nil map", 5, "error: internal error: nil map\nThis is a bug in fedctl; please report it with the command you ran (run it again with -v 6 to include the stack).\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ios, _, _, errOut := iostreams.Test()
			reportPanic(ios, tc.r, tc.verbosity)
			assert.Equal(t, tc.want, errOut.String())
		})
	}
	ios, _, _, errOut := iostreams.Test()
	reportPanic(ios, "nil map", 6)
	assert.Contains(t, errOut.String(), "panic_test.go", "a panic of the main goroutine prints the stack where it is recovered")
}
