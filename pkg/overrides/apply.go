package overrides

import (
	"bytes"
	"encoding/json"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
)

// ApplyError says which override failed for which cluster. Field locates
// the override in the federated object (spec.overrides[0].clusterOverrides[2],
// or spec.overrides[3].clusterName for a cluster listed twice); Op is the
// op applied (replace for an empty one) and Path the override's path.
type ApplyError struct {
	Cluster string
	Field   string
	Op      string
	Path    string
	Err     error
}

// Error renders "cluster eu-1: spec.overrides[0].clusterOverrides[2]
// (replace /spec/replicas): cause".
func (e *ApplyError) Error() string {
	if e.Op == "" && e.Path == "" {
		return fmt.Sprintf("cluster %s: %s: %v", e.Cluster, e.Field, e.Err)
	}
	return fmt.Sprintf("cluster %s: %s (%s %s): %v", e.Cluster, e.Field, e.Op, e.Path, e.Err)
}

func (e *ApplyError) Unwrap() error { return e.Err }

// Apply returns obj with the overrides of cluster applied, as KubeFed's
// ApplyJSONPatch did: the cluster's clusterOverrides are applied in list
// order as one JSON patch, with an empty op meaning replace, by
// github.com/evanphx/json-patch, whose v4 behaviour KubeFed shipped:
//
//   - replace of a missing member of an existing object adds it; replace
//     below a missing parent, or at an array index out of range, fails;
//   - add never creates parents, and add on an existing member replaces its
//     whole value (add /metadata/annotations replaces every annotation);
//   - an array index equal to the length, or "-", appends on add; negative
//     indices count from the end; "01" and "+1" read as index 1;
//   - remove of a missing member fails;
//   - a null value writes null. (KubeFed wrote null for a missing value
//     too; fedctl rejects that, see Validate.)
//
// Entries for other clusters are ignored. The result is a new object that
// shares nothing with obj, with numbers decoded as the API machinery decodes
// them (k8s.io/apimachinery/pkg/util/json): int64 when integral, float64
// otherwise. When cluster has no overrides, obj itself is returned as it
// is, without a copy. obj and ovs are never modified.
//
// An override that Validate would reject, and a cluster listed twice, fail
// before anything is applied. When the patch fails, the error is an
// *ApplyError naming the cluster and the first override that fails.
func Apply(obj map[string]any, cluster string, ovs []federation.ClusterOverrides) (map[string]any, error) {
	p, err := newPatch(cluster, ovs)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return obj, nil
	}
	if obj == nil {
		obj = map[string]any{}
	}
	if out, ok := p.applyNative(obj); ok {
		return out, nil
	}
	doc, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: encode object: %w", cluster, err)
	}
	patched, err := p.apply(doc)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := utiljson.Unmarshal(patched, &out); err != nil {
		return nil, fmt.Errorf("cluster %s: decode patched object: %w", cluster, err)
	}
	return out, nil
}

// ApplyJSON is Apply on an object encoded as JSON, for callers that hold the
// encoding already: it saves encoding the object and decoding the result.
// The result is compact JSON with sorted keys; decoding it with
// k8s.io/apimachinery/pkg/util/json gives what Apply returns. When cluster
// has no overrides, doc itself is returned. doc must hold a JSON object.
func ApplyJSON(doc []byte, cluster string, ovs []federation.ClusterOverrides) ([]byte, error) {
	p, err := newPatch(cluster, ovs)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return doc, nil
	}
	doc = bytes.TrimSpace(doc)
	if len(doc) == 0 || doc[0] != '{' {
		return nil, fmt.Errorf("cluster %s: object is not a JSON object", cluster)
	}
	return p.apply(doc)
}

// patch is the JSON patch of one cluster.
type patch struct {
	cluster string
	entry   int // position in spec.overrides
	ops     []operation
	jp      jsonpatch.Patch
}

// newPatch finds the overrides of cluster and prepares them. It returns nil
// when there is nothing to apply.
func newPatch(cluster string, ovs []federation.ClusterOverrides) (*patch, error) {
	entry := -1
	for i := range ovs {
		if ovs[i].ClusterName != cluster {
			continue
		}
		if entry >= 0 {
			return nil, &ApplyError{Cluster: cluster, Field: entryField(i) + ".clusterName", Err: duplicateCluster(cluster, entry)}
		}
		entry = i
	}
	if entry < 0 || len(ovs[entry].ClusterOverrides) == 0 {
		return nil, nil
	}
	ops, problems := prepareEntry(ovs[entry])
	p := &patch{cluster: cluster, entry: entry, ops: ops}
	if len(problems) > 0 {
		return nil, p.errorAt(problems[0].index, problems[0].err)
	}
	p.jp = make(jsonpatch.Patch, len(ops))
	for k, o := range ops {
		path, _ := json.Marshal(o.path) // encoding a string cannot fail
		jo := jsonpatch.Operation{"op": opJSON[o.op], "path": (*json.RawMessage)(&path)}
		if o.value != nil {
			jo["value"] = &o.value
		}
		p.jp[k] = jo
	}
	return p, nil
}

// opJSON holds each op encoded once. json-patch only reads these.
var opJSON = map[string]*json.RawMessage{
	OpAdd:     rawJSON(`"add"`),
	OpRemove:  rawJSON(`"remove"`),
	OpReplace: rawJSON(`"replace"`),
}

func rawJSON(s string) *json.RawMessage {
	r := json.RawMessage(s)
	return &r
}

// apply applies the whole patch in one go. Only when that fails does it
// apply the operations one at a time, to name the one that failed.
func (p *patch) apply(doc []byte) ([]byte, error) {
	out, err := p.jp.Apply(doc)
	if err == nil {
		return out, nil
	}
	if _, derr := (jsonpatch.Patch{}).Apply(doc); derr != nil {
		return nil, fmt.Errorf("cluster %s: decode object: %w", p.cluster, derr)
	}
	cur := doc
	for k := range p.jp {
		next, kerr := p.jp[k : k+1].Apply(cur)
		if kerr != nil {
			return nil, p.errorAt(k, kerr)
		}
		cur = next
	}
	// Not expected: each operation succeeded on its own.
	return nil, fmt.Errorf("cluster %s: %s: %w", p.cluster, entryField(p.entry), err)
}

func (p *patch) errorAt(k int, err error) error {
	return &ApplyError{Cluster: p.cluster, Field: itemField(p.entry, k), Op: p.ops[k].op, Path: p.ops[k].path, Err: err}
}
