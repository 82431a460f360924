package overrides

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Applied is one override of a cluster as Explain applied it.
type Applied struct {
	// Entry is the override's entry in spec.overrides, Index its position
	// in that entry's clusterOverrides list (both -1 for a typed container
	// override), and Field its place in the federated object:
	// spec.overrides[0].clusterOverrides[2], spec.overrides[1].containers[0].image.
	Entry int
	Index int
	Field string
	// Op is the op applied (replace for an empty one), Path the override's
	// path.
	Op, Path string
	// Old is the value at Path before the override when HadOld: the member
	// that add or replace overwrote, or that remove removed. An add into an
	// array inserts and has no old value.
	Old    any
	HadOld bool
	// New is the value written by add and replace (nil is JSON null); nil
	// for remove.
	New any
}

// Explain is Apply one override at a time: it returns what each override
// of cluster found at its path and wrote there, and the final object, which
// is what Apply returns. The overrides go through the same json-patch v4
// operations as Apply; only the values before and after are read in
// between. When an override fails, the overrides applied before it are
// returned with Apply's error (an *ApplyError naming the cluster, the
// override, its op and path). An override Validate would reject, or a
// cluster listed twice, fails before anything is applied, as in Apply.
// Without overrides for cluster, the result is no steps and obj itself.
// obj and ovs are never modified.
func Explain(obj map[string]any, cluster string, ovs []federation.ClusterOverrides) ([]Applied, map[string]any, error) {
	return ExplainTo(obj, Member{Name: cluster}, ovs)
}

// ExplainTo is Explain for member m, with the entries ApplyTo applies.
func ExplainTo(obj map[string]any, m Member, ovs []federation.ClusterOverrides) ([]Applied, map[string]any, error) {
	steps, out, _, err := ExplainSuperseded(obj, m, ovs)
	return steps, out, err
}

// ExplainSuperseded is ExplainTo that also returns the operations a later
// one on the same path replaced, which are not applied.
func ExplainSuperseded(obj map[string]any, m Member, ovs []federation.ClusterOverrides) ([]Applied, map[string]any, []Superseded, error) {
	steps, out, p, err := explain(obj, m, ovs)
	var superseded []Superseded
	if p != nil {
		superseded = p.superseded
	}
	return steps, out, superseded, err
}

func explain(obj map[string]any, m Member, ovs []federation.ClusterOverrides) ([]Applied, map[string]any, *patch, error) {
	cluster := m.Name
	if obj == nil {
		obj = map[string]any{}
	}
	p, err := newPatch(m, ovs, obj)
	if err != nil {
		return nil, nil, nil, err
	}
	if p == nil {
		return nil, obj, nil, nil
	}
	cur, err := json.Marshal(obj)
	if err != nil {
		return nil, nil, p, fmt.Errorf("cluster %s: encode object: %w", cluster, err)
	}
	var steps []Applied
	for k, o := range p.ops {
		var before any
		if err := utiljson.Unmarshal(cur, &before); err != nil {
			return steps, nil, p, fmt.Errorf("cluster %s: decode object: %w", cluster, err)
		}
		next, err := p.jp[k : k+1].Apply(cur)
		if err != nil {
			return steps, nil, p, p.errorAt(k, err)
		}
		a := Applied{Entry: o.entry, Index: o.item, Field: o.fieldName(), Op: o.op, Path: o.path}
		a.Old, a.HadOld = valueAt(before, o.path, o.op == OpAdd)
		if o.op != OpRemove && o.value != nil {
			if err := utiljson.Unmarshal(o.value, &a.New); err != nil {
				return steps, nil, p, p.errorAt(k, err)
			}
		}
		steps = append(steps, a)
		cur = next
	}
	var out map[string]any
	if err := utiljson.Unmarshal(cur, &out); err != nil {
		return steps, nil, p, fmt.Errorf("cluster %s: decode patched object: %w", cluster, err)
	}
	return steps, out, p, nil
}

// valueAt returns the value at the JSON pointer path in doc, reading array
// indices as json-patch v4 does (strconv.Atoi, negative from the end).
// With insert, an array element is not returned: add inserts before it.
func valueAt(doc any, path string, insert bool) (any, bool) {
	if path == "" || path[0] != '/' {
		return nil, false
	}
	tokens := strings.Split(path[1:], "/")
	cur := doc
	for i, t := range tokens {
		t = unescape(t)
		last := i == len(tokens)-1
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			if last && insert {
				return nil, false
			}
			n, err := strconv.Atoi(t)
			if err != nil {
				return nil, false
			}
			if n < 0 {
				n += len(c)
			}
			if n < 0 || n >= len(c) {
				return nil, false
			}
			cur = c[n]
		default:
			return nil, false
		}
	}
	return cur, true
}
