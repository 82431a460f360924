package input

import (
	"context"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"

	"github.com/fedctl/fedctl/pkg/parallel"
)

// build runs krusty on dir in a goroutine of its own, so that the end of
// ctx (Ctrl-C) ends the wait: krusty's Run takes no context, and a build
// can take long (a remote base cloned with git, a file on a network mount
// that hangs). When ctx ends first, build returns ctx.Err() and the build
// is left to finish in the background, its result dropped; fedctl is on
// its way out by then. A panic of the build is raised again here, as
// fedctl's other goroutines' are (parallel).
func build(ctx context.Context, fs *originFS, dir string) (resmap.ResMap, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		m     resmap.ResMap
		err   error
		panic *parallel.Panic
	}
	done := make(chan result, 1) // the build never blocks on a caller gone
	go func() {
		var r result
		defer func() { done <- r }()
		defer parallel.Recover(func(p *parallel.Panic) { r.panic = p })
		r.m, r.err = krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fs, dir)
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			panic(r.panic)
		}
		return r.m, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
