package members

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/parallel"
)

// TestForEach: members run in parallel within the bound, each under its own
// deadline; a panic fails that member only; a cancelled run starts no more.
func TestForEach(t *testing.T) {
	t.Parallel()
	var running, most atomic.Int64
	deadlines := make([]bool, 6)
	errs := ForEach(context.Background(), 2, time.Minute, 6, func(ctx context.Context, i int) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		_, deadlines[i] = ctx.Deadline()
		time.Sleep(10 * time.Millisecond)
		if i == 3 {
			panic("bug in member 3")
		}
	})
	assert.LessOrEqual(t, most.Load(), int64(2))
	assert.Equal(t, []bool{true, true, true, true, true, true}, deadlines)
	var p *parallel.Panic
	require.ErrorAs(t, errs[3], &p)
	assert.Equal(t, "bug in member 3", p.Value)
	for i, err := range errs {
		if i != 3 {
			assert.NoError(t, err, i)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	errs = ForEach(ctx, 1, time.Minute, 3, func(context.Context, int) { calls++ })
	for _, err := range errs {
		assert.True(t, errors.Is(err, context.Canceled), "%v", err)
	}
	assert.Zero(t, calls, "a cancelled run starts no member")
}

// TestGatherGivesUpOnAMemberThatIgnoresItsContext: a member stuck where no
// context reaches (an exec credential plugin) is given up on at its
// deadline; a member whose own call ends with its context says why itself;
// the others' answers come back; a panic is that member's failure.
func TestGatherGivesUpOnAMemberThatIgnoresItsContext(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	// Closed only when the test ends: a Gather that waited for member 1
	// would never return.
	defer close(stuck)
	out, errs := Gather(context.Background(), 4, 300*time.Millisecond, 4, func(ctx context.Context, i int) string {
		switch i {
		case 1:
			<-stuck // ignores ctx
			return "late"
		case 2:
			<-ctx.Done()
			return "own: " + ctx.Err().Error()
		case 3:
			panic("bug in member 3")
		}
		return "answered"
	})
	assert.Equal(t, []string{"answered", "", "own: context deadline exceeded", ""}, out)
	assert.NoError(t, errs[0])
	var na *NoAnswerError
	require.ErrorAs(t, errs[1], &na)
	assert.ErrorIs(t, errs[1], context.DeadlineExceeded)
	assert.Contains(t, errs[1].Error(), "exec credential plugin")
	assert.NoError(t, errs[2], "a member that ends with its context is not given up on")
	var p *parallel.Panic
	require.ErrorAs(t, errs[3], &p)
	assert.Equal(t, "bug in member 3", p.Value)
}

// TestGatherInterrupted: a member given up on because the run was
// interrupted (Ctrl-C) has the interrupt, not a "no answer in time".
func TestGatherInterrupted(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	defer close(stuck)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	_, errs := Gather(ctx, 1, time.Minute, 1, func(context.Context, int) int { <-stuck; return 1 })
	assert.ErrorIs(t, errs[0], context.Canceled)
	var na *NoAnswerError
	assert.False(t, errors.As(errs[0], &na), "%v", errs[0])
}
