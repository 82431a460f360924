package overrides

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "github.com/evanphx/json-patch"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/fedctl/fedctl/pkg/federation"
)

// ApplyError says which override failed for which cluster. Field locates
// the override in the federated object (spec.overrides[0].clusterOverrides[2],
// or spec.overrides[3].clusterName for a cluster listed twice); Entry and
// Item are its indices there (-1 when the error is about no one override);
// Op is the op applied (replace for an empty one) and Path the override's
// path.
type ApplyError struct {
	Cluster     string
	Field       string
	Entry, Item int
	Op          string
	Path        string
	Err         error
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
	return ApplyTo(obj, Member{Name: cluster}, ovs)
}

// Member is a member cluster as overrides select it: by name, or by its
// labels for an entry with a clusterSelector.
type Member struct {
	Name   string
	Labels map[string]string
}

// ApplyTo is Apply for member m: the entries that name it and those whose
// clusterSelector matches its labels apply, in list order, one JSON patch;
// where a later entry sets a path an earlier one set too, only the later
// operation is applied (later wins). Selector entries are fedctl's: with
// only named entries, ApplyTo is exactly KubeFed's Apply.
func ApplyTo(obj map[string]any, m Member, ovs []federation.ClusterOverrides) (map[string]any, error) {
	cluster := m.Name
	if obj == nil {
		obj = map[string]any{}
	}
	p, err := newPatch(m, ovs, obj)
	if err != nil {
		return nil, err
	}
	if p == nil {
		return obj, nil
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
	var obj map[string]any
	if typed(Member{Name: cluster}, ovs) {
		if err := utiljson.Unmarshal(doc, &obj); err != nil {
			return nil, fmt.Errorf("cluster %s: decode object: %w", cluster, err)
		}
	}
	p, err := newPatch(Member{Name: cluster}, ovs, obj)
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
	ops     []operation
	jp      jsonpatch.Patch
	// superseded are the operations a later one on the same path replaced
	// (later wins), for Explain.
	superseded []Superseded
}

// Superseded is an operation of a member's overrides that another,
// later, on the same path replaced: it is not applied.
type Superseded struct {
	// Field, Entry and Item locate it as Applied's do; By, ByEntry and
	// ByItem the operation that replaced it.
	Field           string
	Entry, Item     int
	Op, Path        string
	By              string
	ByEntry, ByItem int
}

// Matches says whether the entry e applies to member m: it names m, or its
// clusterSelector matches m's labels (a selector that does not parse
// matches nothing; Validate reports it).
func Matches(e federation.ClusterOverrides, m Member) bool {
	ok, err := matches(e, m)
	return ok && err == nil
}

// matches is Matches with the error of a selector that does not parse,
// so that newPatch parses each selector once.
func matches(e federation.ClusterOverrides, m Member) (bool, error) {
	if e.ClusterName != "" || e.ClusterSelector == nil {
		return e.ClusterName == m.Name && m.Name != "", nil
	}
	sel, err := metav1.LabelSelectorAsSelector(e.ClusterSelector)
	if err != nil {
		return false, err
	}
	return sel.Matches(labels.Set(m.Labels)), nil
}

// typed says whether an entry with typed container overrides applies to m.
func typed(m Member, ovs []federation.ClusterOverrides) bool {
	for _, e := range ovs {
		if len(e.Containers) > 0 && Matches(e, m) {
			return true
		}
	}
	return false
}

// newPatch finds the overrides of member m and prepares them, the typed
// container overrides compiled against obj first. It returns nil when there
// is nothing to apply.
func newPatch(m Member, ovs []federation.ClusterOverrides, obj map[string]any) (*patch, error) {
	cluster := m.Name
	named := -1
	var entries []int
	for i := range ovs {
		e := ovs[i]
		ok, err := matches(e, m)
		if err != nil {
			return nil, &ApplyError{Cluster: cluster, Field: entryField(i) + ".clusterSelector", Entry: i, Item: -1, Err: err}
		}
		if !ok {
			continue
		}
		if e.ClusterName != "" {
			if named >= 0 {
				return nil, &ApplyError{Cluster: cluster, Field: entryField(i) + ".clusterName", Entry: i, Item: -1, Err: duplicateCluster(cluster, named)}
			}
			named = i
		}
		if len(e.ClusterOverrides) > 0 || len(e.Containers) > 0 {
			entries = append(entries, i)
		}
	}
	if len(entries) == 0 {
		return nil, nil
	}
	p := &patch{cluster: cluster}
	typedOps, err := containerOps(obj, ovs, entries)
	if err != nil {
		ae := &ApplyError{Cluster: cluster, Entry: -1, Item: -1, Err: err}
		var fe *FieldError
		if errors.As(err, &fe) {
			ae.Field, ae.Err = fe.Field, fe.Err
		}
		return nil, ae
	}
	p.ops = typedOps
	for _, i := range entries {
		ops, problems := prepareEntry(ovs[i])
		for k := range ops {
			ops[k].entry, ops[k].item = i, k
		}
		if len(problems) > 0 {
			return nil, (&patch{cluster: cluster, ops: ops}).errorAt(problems[0].index, problems[0].err)
		}
		p.ops = append(p.ops, ops...)
	}
	if len(entries) > 1 || len(typedOps) > 0 {
		p.ops, p.superseded = laterWins(p.ops)
	}
	if len(p.ops) == 0 {
		return nil, nil
	}
	p.jp = make(jsonpatch.Patch, len(p.ops))
	for k, o := range p.ops {
		path, _ := json.Marshal(o.path) // encoding a string cannot fail
		jo := jsonpatch.Operation{"op": opJSON[o.op], "path": (*json.RawMessage)(&path)}
		if o.value != nil {
			jo["value"] = &o.value
		}
		p.jp[k] = jo
	}
	return p, nil
}

// laterWins drops each operation whose path a later operation sets again:
// for one member, a later entry overrides an earlier one field by field,
// and an entry's JSON patches override the typed container overrides
// before them. Within one entry a path appears once (Validate). It also
// returns what it dropped, and by what.
func laterWins(ops []operation) ([]operation, []Superseded) {
	last := make(map[string]int, len(ops))
	for k, o := range ops {
		last[o.path] = k
	}
	out := ops[:0:0]
	var dropped []Superseded
	for k, o := range ops {
		if last[o.path] == k {
			out = append(out, o)
			continue
		}
		by := ops[last[o.path]]
		dropped = append(dropped, Superseded{Field: o.fieldName(), Entry: o.entry, Item: o.item, Op: o.op, Path: o.path,
			By: by.fieldName(), ByEntry: by.entry, ByItem: by.item})
	}
	return out, dropped
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
	return nil, fmt.Errorf("cluster %s: %s: %w", p.cluster, entryField(p.ops[0].entry), err)
}

func (p *patch) errorAt(k int, err error) error {
	o := p.ops[k]
	return &ApplyError{Cluster: p.cluster, Field: o.fieldName(), Entry: o.entry, Item: o.item, Op: o.op, Path: o.path, Err: err}
}

// fieldName is where the operation comes from in the federated object.
func (o operation) fieldName() string {
	if o.field != "" {
		return o.field
	}
	return itemField(o.entry, o.item)
}
