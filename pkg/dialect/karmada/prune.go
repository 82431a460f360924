package karmada

import (
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
)

// pruned is the template without the fields Karmada removes from a
// resource template before it sends it to members
// (pkg/resourceinterpreter/default/native/prune/prune.go,
// RemoveIrrelevantFields with RemoveJobTTLSeconds, which ctrlutil/work.go
// passes): what the API server or a member's controllers fill in, which a
// manifest exported with kubectl get carries. The template's maps are the
// input's, shared: each map on a changed path is copied, never modified.
//
// Karmada removes them after the override policies, fedctl before; an
// override that sets one of them again keeps it.
func pruned(kind, name string, tmpl federation.Template) federation.Template {
	obj := map[string]any(tmpl)
	switch kind {
	case "Service":
		// clusterIP is each member's own, unless None (headless)
		if ip, _ := dig(obj, "spec", "clusterIP").(string); ip != "" && ip != "None" {
			obj = without(obj, "spec", "clusterIP")
			obj = without(obj, "spec", "clusterIPs")
		}
	case "Deployment":
		obj = without(obj, "metadata", "annotations", "deployment.kubernetes.io/revision")
		obj = without(obj, "metadata", "annotations", "deployment.kubernetes.io/revision-history")
	case "Job":
		// a member's ttl-after-finished controller would delete what
		// Karmada recreates (karmada#2197)
		obj = without(obj, "spec", "ttlSecondsAfterFinished")
		if manual, _ := dig(obj, "spec", "manualSelector").(bool); !manual {
			// the selector the control plane's Job controller generated
			for _, l := range []string{"controller-uid", "batch.kubernetes.io/controller-uid"} {
				obj = without(obj, "spec", "selector", "matchLabels", l)
			}
			for _, l := range []string{"controller-uid", "job-name", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name"} {
				obj = without(obj, "spec", "template", "metadata", "labels", l)
			}
		}
	case "Secret":
		if t, _ := obj["type"].(string); t == "kubernetes.io/service-account-token" {
			obj = without(obj, "metadata", "annotations", "kubernetes.io/service-account.uid")
			obj = without(obj, "data") // each member's token controller fills its own (Karmada sends null)
		}
	case "ServiceAccount":
		if secrets, ok := obj["secrets"].([]any); ok {
			kept := slices.DeleteFunc(slices.Clone(secrets), func(s any) bool {
				n, _ := dig(s, "name").(string)
				return strings.HasPrefix(n, name+"-token-")
			})
			if len(kept) != len(secrets) {
				obj = cloneMap(obj)
				obj["secrets"] = kept
			}
		}
	case "PersistentVolumeClaim":
		if node, _ := dig(obj, "metadata", "annotations", "volume.kubernetes.io/selected-node").(string); node != "" {
			obj = without(obj, "metadata", "annotations", "volume.kubernetes.io/selected-node")
		}
	}
	return federation.Template(obj)
}

// dig is the value at path in v, or nil.
func dig(v any, path ...string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// without is obj with the key at path removed, the maps on the way copied;
// obj itself when there is nothing there.
func without(obj map[string]any, path ...string) map[string]any {
	out, _ := removed(obj, path)
	return out
}

func removed(obj map[string]any, path []string) (map[string]any, bool) {
	if len(path) == 1 {
		if _, ok := obj[path[0]]; !ok {
			return obj, false
		}
		out := cloneMap(obj)
		delete(out, path[0])
		return out, true
	}
	child, ok := obj[path[0]].(map[string]any)
	if !ok {
		return obj, false
	}
	changed, ok := removed(child, path[1:])
	if !ok {
		return obj, false
	}
	out := cloneMap(obj)
	out[path[0]] = changed
	return out, true
}
