package parallel

import (
	"errors"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForCallsEachIndexOnce(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 5, 100, 1000} {
		calls := make([]int, n)
		For(n, 4, func(i int) { calls[i]++ })
		for i, c := range calls {
			assert.Equal(t, 1, c, "n=%d i=%d", n, i)
		}
	}
}

// TestForRaisesAWorkersPanicInTheCaller: a panic on a worker goroutine
// reaches the caller, where cmd.Main's recover sees it, with the stack of
// the worker.
func TestForRaisesAWorkersPanicInTheCaller(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4)) // workers even on one CPU
	var calls atomic.Int64
	var got any
	func() {
		defer func() { got = recover() }()
		For(10_000, 1, func(i int) {
			calls.Add(1)
			if i == 3 {
				panic("boom")
			}
		})
	}()
	p, ok := got.(*Panic)
	require.True(t, ok, "recovered %T %v", got, got)
	assert.Equal(t, "boom", p.Value)
	assert.Equal(t, "internal error: boom", p.Error())
	assert.Contains(t, string(p.Stack), "parallel_test.go", "the worker's stack, where it panicked")
	assert.LessOrEqual(t, calls.Load(), int64(10_000))
}

// TestRecoverKeepsTheFirstStack: a *Panic raised again (a For nested in a
// worker) keeps the stack where the panic happened.
func TestRecoverKeepsTheFirstStack(t *testing.T) {
	t.Parallel()
	orig := &Panic{Value: "inner", Stack: []byte("the first stack")}
	var got *Panic
	func() {
		defer Recover(func(p *Panic) { got = p })
		panic(orig)
	}()
	assert.Same(t, orig, got)

	func() {
		defer Recover(func(p *Panic) { got = p })
		panic(errors.New("plain"))
	}()
	assert.Equal(t, "internal error: plain", got.Error())
	assert.NotEmpty(t, got.Stack)
}

// TestGroupRaisesTheFirstPanicInWait: a Group's goroutine that panics does
// not end the process; Wait raises it in the caller, after the others.
func TestGroupRaisesTheFirstPanicInWait(t *testing.T) {
	t.Parallel()
	var done atomic.Int64
	var got any
	func() {
		defer func() { got = recover() }()
		var g Group
		for i := range 4 {
			g.Go(func() {
				if i == 2 {
					panic("bug")
				}
				done.Add(1)
			})
		}
		g.Wait()
	}()
	p, ok := got.(*Panic)
	require.True(t, ok, "%T", got)
	assert.Equal(t, "bug", p.Value)
	assert.Equal(t, int64(3), done.Load(), "the others ran to the end")
}
