package render

import (
	"encoding/json"
	"iter"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/overrides"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// BaseObject is the template with what every member shares: name,
// namespace, kind and apiVersion set, annotations and finalizers removed;
// the member object before overrides and fedctl's markers. Only the top
// level and metadata are copied: the rest is the template's, shared, and
// must not be modified, which saves a deep copy per object.
func BaseObject(o *federation.Object, t typeconfig.Type) map[string]any {
	obj := maps.Clone(map[string]any(o.Spec.Template))
	if obj == nil {
		obj = map[string]any{}
	}
	meta, _ := obj["metadata"].(map[string]any)
	meta = maps.Clone(meta)
	if meta == nil {
		meta = map[string]any{}
	}
	obj["metadata"] = meta
	annotations, finalizers := clearedMetadata(o)
	if annotations {
		delete(meta, "annotations")
	}
	if finalizers {
		delete(meta, "finalizers")
	}
	meta["name"] = o.Name
	if t.Namespaced() {
		meta["namespace"] = o.Namespace
	} else {
		delete(meta, "namespace")
	}
	obj["kind"] = t.Kind
	if v, _ := obj["apiVersion"].(string); v == "" {
		obj["apiVersion"] = t.APIVersion()
	}
	return obj
}

// allStrings says whether every value is a string.
func allStrings(values iter.Seq[any]) bool {
	for v := range values {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return true
}

// markedCopy is base marked as fedctl's: the member object of every member
// without overrides. It copies what mark changes, so base stays as it is.
func markedCopy(base map[string]any, o *federation.Object) map[string]any {
	obj := maps.Clone(base)
	meta := maps.Clone(base["metadata"].(map[string]any))
	obj["metadata"] = meta
	if labels, ok := meta["labels"].(map[string]any); ok {
		meta["labels"] = maps.Clone(labels)
	}
	mark(obj, o)
	return obj
}

func droppedMetadata(o *federation.Object) string {
	annotations, finalizers := clearedMetadata(o)
	var dropped []string
	if annotations {
		dropped = append(dropped, "annotations")
	}
	if finalizers {
		dropped = append(dropped, "finalizers")
	}
	return strings.Join(dropped, " and ")
}

// clearedMetadata says whether the template's annotations and finalizers
// are cleared from the member objects, as KubeFed's ObjectForCluster
// (pkg/controller/sync/resource.go) clears them when GetAnnotations and
// GetFinalizers see any: an empty map or list stays (an override may add
// to it), and so does one with a value that is not a string, which those
// getters do not read (the member then refuses it, as under KubeFed).
func clearedMetadata(o *federation.Object) (annotations, finalizers bool) {
	meta, _ := o.Spec.Template["metadata"].(map[string]any)
	a, _ := meta["annotations"].(map[string]any)
	f, _ := meta["finalizers"].([]any)
	return !o.Rules.KeepAnnotations && len(a) > 0 && allStrings(maps.Values(a)), len(f) > 0 && allStrings(slices.Values(f))
}

// forCluster returns the member object for cluster. A member without
// overrides gets marked, shared with the other such members. A member with
// overrides gets base with its overrides applied, then marked; the parts its
// overrides left alone are then swapped for marked's, so that each member
// holds only what differs (a member object is most of its memory, and a
// replica count differs per member for every ReplicaSchedulingPreference).
// Members whose overrides are the same get the same object: variants holds
// them by their overrides (see variantKey), as members planned the same
// replica count often are.
func forCluster(base, marked map[string]any, variants map[string]map[string]any, m overrides.Member, ovs []federation.ClusterOverrides, o *federation.Object) (map[string]any, error) {
	if !hasOverrides(m, ovs) {
		return marked, nil
	}
	key, shareable := variantKey(m, ovs)
	if shareable {
		if obj, ok := variants[key]; ok {
			return obj, nil
		}
	}
	obj, err := overrides.ApplyTo(base, m, ovs)
	if err != nil {
		return nil, err
	}
	if sameMap(obj, base) { // nothing applied after all; never mark base
		return marked, nil
	}
	mark(obj, o)
	shared, _ := shareUnchanged(obj, marked)
	obj = shared.(map[string]any)
	if shareable {
		variants[key] = obj
	}
	return obj, nil
}

// variantKey identifies the overrides of m: two members whose keys are
// equal get equal objects from overrides.ApplyTo, which depends on the
// operations of the entries that apply, in order, alone when it succeeds
// (only its errors name the cluster and the entry). It reports false when
// m is named by several entries, which ApplyTo refuses.
func variantKey(m overrides.Member, ovs []federation.ClusterOverrides) (string, bool) {
	var b strings.Builder
	named, found := false, false
	for i := range ovs {
		entry := &ovs[i]
		if !overrides.Matches(*entry, m) {
			continue
		}
		if entry.ClusterName != "" {
			if named {
				return "", false
			}
			named = true
		}
		found = true
		b.WriteByte('|') // entries bound "later wins"
		if len(entry.Containers) > 0 {
			typed, _ := json.Marshal(entry.Containers) // strings, lists and maps: cannot fail
			b.WriteString(strconv.Itoa(len(typed)))
			b.WriteByte(':')
			b.Write(typed)
		}
		for _, op := range entry.ClusterOverrides {
			// Length-prefixed, so that no two lists share a key.
			for _, s := range []string{op.Op, op.Path, string(op.Value)} {
				b.WriteString(strconv.Itoa(len(s)))
				b.WriteByte(':')
				b.WriteString(s)
			}
		}
	}
	return b.String(), found
}

// sameMap reports whether a and b are the same map, not merely equal ones.
func sameMap(a, b map[string]any) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// shareUnchanged returns v with every part equal to the same part of base
// replaced by base's, and whether all of v equals base (then it returns
// base itself). v is changed in place; base never is. Equal means the same
// JSON: same types and values, and floats of the same bits, so that -0 and
// 0 stay apart.
func shareUnchanged(v, base any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		b, ok := base.(map[string]any)
		if !ok || (v == nil) != (b == nil) {
			return v, false
		}
		equal := len(v) == len(b)
		for k, x := range v {
			bx, found := b[k]
			if !found {
				equal = false
				continue
			}
			y, same := shareUnchanged(x, bx)
			v[k] = y
			equal = equal && same
		}
		if equal {
			return base, true
		}
		return v, false
	case []any:
		b, ok := base.([]any)
		if !ok || (v == nil) != (b == nil) {
			return v, false
		}
		equal := len(v) == len(b)
		for i, x := range v {
			if i >= len(b) {
				break
			}
			y, same := shareUnchanged(x, b[i])
			v[i] = y
			equal = equal && same
		}
		if equal {
			return base, true
		}
		return v, false
	case string:
		if b, ok := base.(string); ok && b == v {
			return base, true
		}
	case int64:
		if b, ok := base.(int64); ok && b == v {
			return base, true
		}
	case float64:
		if b, ok := base.(float64); ok && math.Float64bits(b) == math.Float64bits(v) {
			return base, true
		}
	case bool:
		if b, ok := base.(bool); ok && b == v {
			return base, true
		}
	case nil:
		if base == nil {
			return nil, true
		}
	}
	return v, false
}

func hasOverrides(m overrides.Member, ovs []federation.ClusterOverrides) bool {
	for _, o := range ovs {
		if (len(o.ClusterOverrides) > 0 || len(o.Containers) > 0) && overrides.Matches(o, m) {
			return true
		}
	}
	return false
}

// mark adds the labels and annotation that identify a member object as
// fedctl's, last, so that neither the template nor an override removes them.
func mark(obj map[string]any, o *federation.Object) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil { // an override replaced /metadata with something else
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	labels[federation.ManagedLabel] = federation.ManagedLabelValue
	labels[federation.ManagedByLabel] = federation.ManagedByValue
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[federation.SourceAnnotation] = o.SourceRef()
}
