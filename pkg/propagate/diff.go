package propagate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Comparison is one object of one member as Compare saw it.
type Comparison struct {
	// Object says which object, and what a real run would do to it.
	Object ObjectResult
	// Live is the object in the member; nil when it does not exist.
	Live *unstructured.Unstructured
	// Merged is what the server-side dry run made of it; nil when it would
	// be deleted.
	Merged *unstructured.Unstructured
}

func comparisonOf(res ObjectResult, live, merged *unstructured.Unstructured) Comparison {
	c := Comparison{Object: res}
	if live != nil {
		c.Live = live.DeepCopy()
	}
	if merged != nil {
		c.Merged = merged.DeepCopy()
	}
	return c
}

// FileName names the object as kubectl diff does, after the member:
// "CLUSTER_GROUP.VERSION.KIND.NAMESPACE.NAME", the group left out for the
// core group and the namespace empty for a cluster-scoped object
// ("eu-1_apps.v1.Deployment.shop.web", "eu-1_v1.Namespace..shop"). Member
// names are DNS-1123 subdomains, so the "_" cannot be part of one. All
// files go in one directory, so that every external diff program sees
// them, recursive or not.
func (c Comparison) FileName(cluster string) string {
	gv, _ := schema.ParseGroupVersion(c.Object.APIVersion)
	group := ""
	if gv.Group != "" {
		group = gv.Group + "."
	}
	return fmt.Sprintf("%s_%s%s.%s.%s.%s", cluster, group, gv.Version, c.Object.Kind, c.Object.Namespace, c.Object.Name)
}

func (s *memberSync) sortedComparisons() []Comparison {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := slices.Clone(s.comparisons)
	slices.SortStableFunc(out, func(a, b Comparison) int { return strings.Compare(a.FileName(s.cluster), b.FileName(s.cluster)) })
	return out
}

// bookkeepingAnnotations are fedctl's own records on member objects; a
// change to them always comes with the change that caused it, so a diff
// leaves them out.
var bookkeepingAnnotations = []string{federation.HashAnnotation, federation.GenerationAnnotation}

// stripServerFields returns a copy of obj without what the API server keeps for
// itself and changes on every write: managedFields (and their times),
// resourceVersion, generation, uid, creationTimestamp, and fedctl's
// bookkeeping annotations. Nil stays nil.
func stripServerFields(obj *unstructured.Unstructured) *unstructured.Unstructured {
	if obj == nil {
		return nil
	}
	out := obj.DeepCopy()
	for _, f := range []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"} {
		unstructured.RemoveNestedField(out.Object, "metadata", f)
	}
	if ann := out.GetAnnotations(); ann != nil {
		for _, k := range bookkeepingAnnotations {
			delete(ann, k)
		}
		if len(ann) == 0 {
			unstructured.RemoveNestedField(out.Object, "metadata", "annotations")
		} else {
			out.SetAnnotations(ann)
		}
	}
	return out
}

// sameObject says whether live and merged differ only in what stripServerFields
// strips.
func sameObject(live, merged *unstructured.Unstructured) bool {
	return reflect.DeepEqual(stripServerFields(live).Object, stripServerFields(merged).Object)
}

// Values kubectl diff puts in place of a Secret's values: a value the same
// on both sides, and one that changed, so that the change still shows.
const (
	secretMask       = "***"
	secretMaskBefore = "*** (before)"
	secretMaskAfter  = "*** (after)"
)

// maskSecrets replaces the values of data and stringData in live and
// merged (already copies) when they are Secrets, as kubectl diff does: an
// unchanged value becomes "***" on both sides, a changed one "*** (before)"
// and "*** (after)", one on a single side "***". No value is ever written.
func maskSecrets(live, merged *unstructured.Unstructured) {
	isSecret := func(u *unstructured.Unstructured) bool {
		return u != nil && u.GetKind() == "Secret" && u.GetAPIVersion() == "v1"
	}
	if !isSecret(live) && !isSecret(merged) {
		return
	}
	for _, field := range []string{"data", "stringData"} {
		var before, after map[string]any
		if live != nil {
			before, _, _ = unstructured.NestedMap(live.Object, field)
		}
		if merged != nil {
			after, _, _ = unstructured.NestedMap(merged.Object, field)
		}
		maskedBefore, maskedAfter := map[string]any{}, map[string]any{}
		for k, v := range before {
			maskedBefore[k] = secretMask
			if w, ok := after[k]; ok && !reflect.DeepEqual(v, w) {
				maskedBefore[k], maskedAfter[k] = secretMaskBefore, secretMaskAfter
			}
		}
		for k := range after {
			if _, ok := maskedAfter[k]; !ok {
				maskedAfter[k] = secretMask
			}
		}
		if before != nil {
			_ = unstructured.SetNestedMap(live.Object, maskedBefore, field)
		}
		if after != nil {
			_ = unstructured.SetNestedMap(merged.Object, maskedAfter, field)
		}
	}
	// kubectl apply keeps the whole Secret, values included, in this
	// annotation; it would print them in the diff's context lines.
	for _, u := range []*unstructured.Unstructured{live, merged} {
		if u == nil {
			continue
		}
		if ann := u.GetAnnotations(); ann[lastAppliedAnnotation] != "" {
			ann[lastAppliedAnnotation] = secretMask
			u.SetAnnotations(ann)
		}
	}
}

// lastAppliedAnnotation is where kubectl apply records what it applied.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// Sides are the live and merged objects as kubectl diff compares them:
// server-kept fields stripped (see stripServerFields), Secret values
// masked, nil where an object does not exist (diff -N then shows it added
// or deleted), and whether they differ. The comparison's own objects are
// not modified.
func (c Comparison) Sides() (live, merged *unstructured.Unstructured, differ bool) {
	live, merged = stripServerFields(c.Live), stripServerFields(c.Merged)
	maskSecrets(live, merged)
	return live, merged, live == nil || merged == nil || !reflect.DeepEqual(live.Object, merged.Object)
}
