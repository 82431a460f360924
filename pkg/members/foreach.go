package members

import (
	"context"
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
