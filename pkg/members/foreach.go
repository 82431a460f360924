package members

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/fedctl/fedctl/pkg/parallel"
)

// ForEach runs fn(ctx, i) for members 0..n-1 in parallel, at most
// concurrency at once, each with its own timeout: one member that does not
// answer never holds up the others beyond its own time. It returns, per
// member, ctx's error when ctx ended before the member's turn (fn was not
// called), or a *parallel.Panic when fn panicked: a bug is that member's
// failure, reported as such, and the others go on. A timeout of zero or
// less sets no time of its own: fn's context ends with ctx.
func ForEach(ctx context.Context, concurrency int, timeout time.Duration, n int, fn func(ctx context.Context, i int)) []error {
	errs := make([]error, n)
	sem := make(chan struct{}, max(concurrency, 1))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-sem }()
			defer parallel.Recover(func(p *parallel.Panic) { errs[i] = p })
			mctx, cancel := ctx, context.CancelFunc(func() {})
			if timeout > 0 {
				mctx, cancel = context.WithTimeout(ctx, timeout)
			}
			defer cancel()
			fn(mctx, i)
		})
	}
	wg.Wait()
	return errs
}

// Gather runs fn(ctx, i) for members 0..n-1 as ForEach does and returns
// what each gave, giving up on a member when its context ends whether or
// not fn returned (Await). The other errors are ForEach's.
func Gather[T any](ctx context.Context, concurrency int, timeout time.Duration, n int, fn func(ctx context.Context, i int) T) ([]T, []error) {
	out := make([]T, n)
	abandoned := make([]error, n)
	errs := ForEach(ctx, concurrency, timeout, n, func(mctx context.Context, i int) {
		out[i], abandoned[i] = Await(mctx, func() T { return fn(mctx, i) })
	})
	for i, err := range abandoned {
		if errs[i] == nil {
			errs[i] = err
		}
	}
	return out, errs
}

// Await returns what fn gives, or a *NoAnswerError when ctx's deadline
// passes first and fn does not return soon after (ctx's cause when it was
// cancelled instead: an interrupt). Some of what a member's work waits on
// cannot be bounded by a context: client-go runs an exec credential plugin
// with none, and a Cluster API member's client waits for its kubeconfig
// Secret under the run's own time. A read or a write must end at its
// deadline whatever a member does. fn is then left to run out in the
// background; it writes only to its own channel, so nothing it does later
// reaches the caller. A panic in fn is raised again in the caller's
// goroutine, where ForEach reports it as that member's failure.
func Await[T any](ctx context.Context, fn func() T) (T, error) {
	type answer struct {
		v     T
		panic *parallel.Panic
	}
	done := make(chan answer, 1) // fn's goroutine never blocks on it
	go func() {
		var a answer
		defer func() { done <- a }()
		defer parallel.Recover(func(p *parallel.Panic) { a.panic = p })
		a.v = fn()
	}()
	take := func(a answer) (T, error) {
		if a.panic != nil {
			panic(a.panic)
		}
		return a.v, nil
	}
	select {
	case a := <-done:
		return take(a)
	case <-ctx.Done():
		// fn's requests end with its context: let it say why itself
		// when it can, before giving up on it.
		select {
		case a := <-done:
			return take(a)
		case <-time.After(abandonGrace):
			var zero T
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return zero, context.Cause(ctx) // interrupted (Ctrl-C): said as such
			}
			return zero, &NoAnswerError{Cause: context.Cause(ctx)}
		}
	}
}

// abandonGrace is how long Await waits, after the context ended, for fn
// to return with its own error.
const abandonGrace = 200 * time.Millisecond

// NoAnswerError is a member's work Await gave up on: its time ended
// (Cause) while it still waited on something no context reaches.
type NoAnswerError struct{ Cause error }

func (e *NoAnswerError) Error() string {
	return fmt.Sprintf("no answer in time, not even an error (%v): an exec credential plugin or a Cluster API management cluster that hangs does this", e.Cause)
}

func (e *NoAnswerError) Unwrap() error { return e.Cause }
