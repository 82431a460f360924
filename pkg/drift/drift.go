package drift

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
)

// Check says whether live, the member object of t as read from its member,
// no longer matches what apply would send for t, and why; "" means it
// matches. The rules are apply's own (see
// UpToDate): the applied-hash annotation must be the hash of t's object,
// metadata.generation must be the one recorded in federation.GenerationAnnotation
// after the last apply, fedctl's labels and annotations must hold, and for
// types without a generation every field fedctl sets must hold its value.
// An object without the hash, applied by another tool from render's output,
// is judged by its content alone (Holds).
// With spec.retainReplicas the replica count is left out of the
// comparison, as apply leaves it to whoever scales the object. Neither
// argument is modified.
func Check(t render.Target, live *unstructured.Unstructured) (string, error) {
	hashed := t.Object
	retain := t.RetainReplicas
	setID := live.GetLabels()[federation.ApplySetPartOfLabel]
	if retain || setID != "" {
		hashed = runtime.DeepCopyJSON(t.Object)
	}
	if retain {
		unstructured.RemoveNestedField(hashed, "spec", "replicas")
	}
	if setID != "" {
		// apply --prune --applyset adds the set's label to what it applies
		// (and hashes); the live label says which set.
		u := &unstructured.Unstructured{Object: hashed}
		labels := u.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[federation.ApplySetPartOfLabel] = setID
		u.SetLabels(labels)
	}
	if live.GetAnnotations()[federation.HashAnnotation] == "" {
		// Applied by another tool from fedctl's rendered output (kubectl
		// apply of render's tree, a GitOps controller): it carries
		// fedctl's markers but not the hash apply records, so it is judged
		// by content, as diff would judge it.
		if Holds(live, hashed) {
			return "", nil
		}
		return "it differs from what fedctl would apply (and fedctl has not applied it: it has no " + federation.HashAnnotation + " annotation)", nil
	}
	hash, err := Hash(hashed)
	if err != nil {
		return "", fmt.Errorf("hash %s %s: %w", t.Type.Kind, t.Name(), err)
	}
	if UpToDate(live, hashed, hash, retain) {
		return "", nil
	}
	ann := live.GetAnnotations()
	switch {
	case ann[federation.HashAnnotation] != hash:
		return "the manifests changed since fedctl last applied it", nil
	}
	if reason := Generation(live); reason != "" && !retain {
		return reason, nil
	}
	return "its labels, annotations or fields were changed since fedctl applied it", nil
}

// Generation says whether someone changed live's spec since fedctl
// last applied it, from live alone: its metadata.generation is not the one
// fedctl recorded in federation.GenerationAnnotation. "" means no such change shows.
// It needs no manifest, so it is all that can be told of an object whose
// federated object is not at hand; objects without a generation
// (ConfigMap, Secret, ...) never show drift this way.
func Generation(live *unstructured.Unstructured) string {
	gen := live.GetGeneration()
	recorded, ok := live.GetAnnotations()[federation.GenerationAnnotation]
	if gen == 0 || !ok || recorded == strconv.FormatInt(gen, 10) {
		return ""
	}
	return fmt.Sprintf("its spec was changed since fedctl applied it (generation %d, fedctl applied generation %s)", gen, recorded)
}
