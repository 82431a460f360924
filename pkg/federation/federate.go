package federation

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// Federate converts a plain object into the federated object that
// propagates it everywhere, as kubefedctl federate does: the template is the
// object without apiVersion, kind, status and any metadata but labels, and
// without the fields a member cluster assigns (a Service's clusterIP,
// clusterIPs and nodePorts, a ServiceAccount's secrets, a Namespace's
// spec.finalizers); placement selects every member (clusterSelector with
// empty matchLabels). A Namespace's federated object lives in the namespace
// itself. notes says what was dropped that a user may miss. obj is not
// modified.
func Federate(obj *unstructured.Unstructured) (fed map[string]any, notes []string) {
	tmpl := runtime.DeepCopyJSON(obj.Object)
	delete(tmpl, "apiVersion")
	delete(tmpl, "kind")
	delete(tmpl, "status")
	if meta, ok := tmpl["metadata"].(map[string]any); ok {
		if a, ok := meta["annotations"].(map[string]any); ok && len(a) > 0 {
			notes = append(notes, "annotations dropped: "+strings.Join(slices.Sorted(maps.Keys(a)), ", ")+" (KubeFed does not propagate template annotations)")
		}
		labels, _ := meta["labels"].(map[string]any)
		// The markers apply puts on what it propagates are apply's to set:
		// copied into a template, an ApplySet's part-of label would claim
		// the object for that set in every member.
		var markers []string
		for _, k := range []string{ManagedLabel, ManagedByLabel, ApplySetPartOfLabel} {
			if v, ok := labels[k]; ok && (k != ManagedByLabel || v == ManagedByValue) {
				markers = append(markers, k)
				delete(labels, k)
			}
		}
		if len(markers) > 0 {
			notes = append(notes, "fedctl's markers dropped: "+strings.Join(markers, ", ")+" (apply sets them)")
		}
		delete(tmpl, "metadata")
		if labels != nil && (len(labels) > 0 || len(markers) == 0) {
			tmpl["metadata"] = map[string]any{"labels": labels}
		}
	}
	switch obj.GetKind() {
	case "Service":
		if spec, ok := tmpl["spec"].(map[string]any); ok {
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
			if ports, ok := spec["ports"].([]any); ok {
				for _, p := range ports {
					if pm, ok := p.(map[string]any); ok {
						delete(pm, "nodePort")
					}
				}
			}
		}
	case "ServiceAccount":
		delete(tmpl, "secrets")
	case "Namespace":
		if spec, ok := tmpl["spec"].(map[string]any); ok {
			delete(spec, "finalizers")
			if len(spec) == 0 {
				delete(tmpl, "spec")
			}
		}
	}
	namespace := obj.GetNamespace()
	if obj.GetKind() == "Namespace" {
		namespace = obj.GetName()
	}
	meta := map[string]any{"name": obj.GetName()}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	fed = map[string]any{
		"apiVersion": TypesGroup + "/" + TypesVersion,
		"kind":       KindPrefix + obj.GetKind(),
		"metadata":   meta,
		"spec": map[string]any{
			"template": tmpl,
			"placement": map[string]any{
				"clusterSelector": map[string]any{"matchLabels": map[string]any{}},
			},
		},
	}
	return fed, notes
}
