package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// For calls fn(i) for every i in [0, n), on up to GOMAXPROCS goroutines,
// giving each goroutine at least minPerWorker calls: small inputs, such as
// tests and single files, stay on the calling goroutine. It returns when
// every call has returned. fn must be safe to call concurrently.
//
// A panic in fn is raised again in the caller's goroutine, as a *Panic,
// once the other workers have stopped: a panic on a worker goroutine would
// otherwise end the process with Go's stack trace and exit status 2, which
// fedctl's exit codes reserve for usage errors, past cmd.Main's recover.
func For(n, minPerWorker int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(minPerWorker, 1))
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var first atomic.Pointer[Panic]
	for range workers {
		wg.Go(func() {
			defer Recover(func(p *Panic) {
				first.CompareAndSwap(nil, p)
				next.Store(int64(n)) // the others stop after their current call
			})
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
	if p := first.Load(); p != nil {
		panic(p)
	}
}

// Panic is a panic recovered on a worker goroutine, with the stack where
// it happened: what a bug report needs, printed by cmd.Main only at high
// verbosity.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("internal error: %v", p.Value) }

// Recover, deferred at the top of a goroutine, hands a panic of that
// goroutine to report as a *Panic instead of ending the process; a *Panic
// raised again from a nested For keeps its original stack.
func Recover(report func(*Panic)) {
	r := recover()
	if r == nil {
		return
	}
	if p, ok := r.(*Panic); ok {
		report(p)
		return
	}
	report(&Panic{Value: r, Stack: debug.Stack()})
}

// Group is a sync.WaitGroup whose goroutines' panics are not lost: Wait
// raises the first one again, as a *Panic with its stack, in the caller's
// goroutine, where cmd.Main (or members.ForEach, for one member) recovers
// it. Every goroutine fedctl starts runs in a Group, a For or
// members.ForEach.
type Group struct {
	wg    sync.WaitGroup
	first atomic.Pointer[Panic]
}

// Go runs fn on a new goroutine.
func (g *Group) Go(fn func()) {
	g.wg.Go(func() {
		defer Recover(func(p *Panic) { g.first.CompareAndSwap(nil, p) })
		fn()
	})
}

// Wait waits for every goroutine, then raises the first panic, if any.
func (g *Group) Wait() {
	g.wg.Wait()
	if p := g.first.Load(); p != nil {
		panic(p)
	}
}
