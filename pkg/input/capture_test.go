package input

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCaptureOutput: what is written to os.Stderr and to the standard
// logger during a build comes out as warnings in the order it was written,
// and a line of the logger is out before log.Printf returns, since
// log.Fatal exits right after it; a line without a newline comes out at
// the end.
func TestCaptureOutput(t *testing.T) {
	var warnings bytes.Buffer
	out := &warningWriter{w: &warnings, fs: &originFS{dir: "k"}}
	var seen []string // no race: the reader has written when log.Printf returns
	err := captureOutput(out, func() error {
		for i := range 3 {
			fmt.Fprintf(os.Stderr, "# Warning: stderr %d\n", i)
			log.Printf("log %d", i)
			seen = append(seen, warnings.String())
		}
		fmt.Fprint(os.Stderr, "no newline")
		return nil
	})
	require.NoError(t, err)
	want := ""
	for i := range 3 {
		want += fmt.Sprintf("warning: kustomization k: stderr %d\nwarning: kustomization k: log %d\n", i, i)
		assert.Equal(t, want, seen[i], "written when log.Printf returned")
	}
	assert.Equal(t, want+"warning: kustomization k: no newline\n", warnings.String())
	assert.False(t, strings.Contains(warnings.String(), syncMarker))
}
