package cmdutil

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMembersError(t *testing.T) {
	t.Parallel()
	assert.NoError(t, MembersError(nil, false))

	err := MembersError([]string{"cluster2"}, false)
	var partial *PartialError
	assert.True(t, errors.As(err, &partial), "some members failed: exit 3")
	assert.Equal(t, []string{"cluster2"}, partial.Failed)

	err = MembersError([]string{"cluster1", "cluster2"}, false)
	assert.True(t, errors.As(err, &partial), "every member had a failure, but something was done: exit 3")

	err = MembersError([]string{"cluster1", "cluster2"}, true)
	assert.False(t, errors.As(err, &partial), "nothing could be done: a plain error, exit 1")
	assert.EqualError(t, err, "every member cluster failed: cluster1, cluster2")
}

// TestExitCodeOf: every kind of error has one exit code, the one the
// binary exits with: cobra's own usage errors (raised before fedctl code
// runs, unmarked) are 2 here too, and when members failed and a wait timed
// out, 3 wins over 4.
func TestExitCodeOf(t *testing.T) {
	t.Parallel()
	partial := &PartialError{Failed: []string{"c1"}}
	timeout := &TimeoutError{Err: errors.New("not Current within 5m")}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"nil", nil, ExitOK},
		{"plain", errors.New("boom"), ExitFailure},
		{"flag error", FlagErrorf("--timeout must be positive"), ExitUsage},
		{"cobra unknown flag", errors.New("unknown flag: --nope"), ExitUsage},
		{"cobra arguments", errors.New("accepts 1 arg(s), received 2"), ExitUsage},
		{"cobra unknown command", errors.New(`unknown command "aply" for "fedctl"`), ExitUsage},
		{"usage words inside a message", errors.New(`cluster c1: unknown flag in its kubeconfig`), ExitFailure},
		{"partial", partial, ExitPartial},
		{"timeout", timeout, ExitTimeout},
		{"partial and timeout", errors.Join(partial, timeout), ExitPartial},
		{"every member failed and timeout", errors.Join(MembersError([]string{"c1"}, true), timeout), ExitFailure},
		{"every member failed, and a step after it partly", errors.Join(MembersError([]string{"c1"}, true), partial), ExitFailure},
		{"explicit", &ExitError{Code: 5}, 5},
		{"silent", ErrSilent, ExitFailure},
		{"interrupted", fmt.Errorf("reading: %w", context.Canceled), ExitFailure},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ExitCodeOf(tc.err))
		})
	}
}
