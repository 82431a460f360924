package printers

import (
	"reflect"
	"unsafe"

	"github.com/fedctl/fedctl/pkg/render"
)

// render shares what member objects have in common (see render.Target): the
// members a federated object's overrides leave alone get one object, and
// the others share every part their overrides did not change. shared lets
// the writers encode such a map once instead of once per member. It changes
// no byte of the output, only the time (a map's encoding is the same
// wherever it appears) and costs memory only for maps still to be written.
type shared struct {
	depth int
	// remaining counts, for each map reached more than once, the times
	// encoding will still reach it.
	remaining map[unsafe.Pointer]int
	encoded   map[unsafe.Pointer][]byte
}

// sharedDepth is how deep in an object JSON output looks for shared maps:
// the object, its metadata and spec, and their maps (a Deployment's pod
// template, which members planned different replica counts share). Deeper
// maps are rarely shared apart from their parents, and looking costs a map
// lookup each.
const sharedDepth = 2

// sharedMaps counts how often encoding the targets reaches each map: the
// objects themselves (depth 0), and the maps inside them down to depth,
// stopping at maps reached before (once encoded, a map is not descended
// into again).
func sharedMaps(targets []render.Target, depth int) *shared {
	s := &shared{depth: depth, remaining: map[unsafe.Pointer]int{}, encoded: map[unsafe.Pointer][]byte{}}
	for _, t := range targets {
		s.count(t.Object, depth)
	}
	for p, n := range s.remaining {
		if n < 2 {
			delete(s.remaining, p)
		}
	}
	return s
}

func (s *shared) count(v any, depth int) {
	if depth < 0 {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		p := mapPointer(v)
		if p == nil {
			return
		}
		if n, seen := s.remaining[p]; seen {
			s.remaining[p] = n + 1
			return
		}
		s.remaining[p] = 1
		for _, x := range v {
			s.count(x, depth-1)
		}
	case []any:
		for _, x := range v {
			s.count(x, depth-1)
		}
	}
}

// lookup returns the encoding of m if m is shared and was encoded already.
// shared reports whether m is shared at all; then the caller encodes it
// (when not cached) and calls done.
func (s *shared) lookup(m map[string]any, depth int) (enc []byte, p unsafe.Pointer, isShared bool) {
	if s == nil || depth > s.depth {
		return nil, nil, false
	}
	p = mapPointer(m)
	if _, ok := s.remaining[p]; !ok {
		return nil, nil, false
	}
	return s.encoded[p], p, true
}

// done records one use of shared map p, with its encoding, and forgets the
// encoding after the last use.
func (s *shared) done(p unsafe.Pointer, enc []byte) {
	n := s.remaining[p] - 1
	if n <= 0 {
		delete(s.remaining, p)
		delete(s.encoded, p)
		return
	}
	s.remaining[p] = n
	if _, ok := s.encoded[p]; !ok {
		s.encoded[p] = append([]byte(nil), enc...)
	}
}

// mapPointer identifies a map: two values with the same pointer are the
// same map.
func mapPointer(m map[string]any) unsafe.Pointer {
	if m == nil {
		return nil
	}
	return reflect.ValueOf(m).UnsafePointer()
}
