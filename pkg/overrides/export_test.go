package overrides

import "github.com/fedctl/fedctl/pkg/federation"

// ApplyNative runs only the fast path of Apply: ok is false where Apply
// would fall back to json-patch, or where newPatch fails.
func ApplyNative(obj map[string]any, cluster string, ovs []federation.ClusterOverrides) (out map[string]any, ok bool) {
	p, err := newPatch(Member{Name: cluster}, ovs, obj)
	if err != nil || p == nil {
		return nil, false
	}
	return p.applyNative(obj)
}
