package drift

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/federation"
)

// Hash is the hex sha256 of obj's JSON. encoding/json writes map keys
// sorted, so equal objects give equal hashes.
func Hash(obj map[string]any) (string, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// UpToDate says whether live is what fedctl applied last time with hash and
// nobody changed it since, so that applying desired again would change
// nothing. It reads only live: no request.
//
// As in KubeFed (pkg/controller/sync/version, which compares generations), spec drift shows through metadata.generation, which
// fedctl recorded after its apply; labels and annotations are compared
// directly. Objects without a generation (ConfigMap, Secret, Service, ...)
// have their content compared too, since nothing else would show drift:
// every field fedctl sets must hold the same value live, where the API
// server may have added others (defaults, a Service's cluster IP).
//
// retainReplicas (desired then holds no spec.replicas) compares content
// when the generation moved: an autoscaler changing spec.replicas moves
// it, and that alone must not cost a write at every run.
func UpToDate(live *unstructured.Unstructured, desired map[string]any, hash string, retainReplicas bool) bool {
	ann := live.GetAnnotations()
	if ann[federation.HashAnnotation] != hash {
		return false
	}
	gen := live.GetGeneration()
	recorded := ann[federation.GenerationAnnotation]
	generationHolds := gen == 0 && recorded == "" || gen != 0 && recorded == strconv.FormatInt(gen, 10)
	if !generationHolds && !(retainReplicas && gen != 0) {
		return false
	}
	if gen != 0 && generationHolds {
		meta, _ := desired["metadata"].(map[string]any)
		return containsStrings(meta["labels"], live.GetLabels()) && containsStrings(meta["annotations"], ann)
	}
	return Holds(live, desired)
}

// Holds says whether live holds every field of desired with the same value
// (labels and annotations included): what server-side apply of desired
// would leave unchanged, whoever applied it. The API server may have added
// fields (defaults, a Service's cluster IP); those do not count.
func Holds(live *unstructured.Unstructured, desired map[string]any) bool {
	meta, _ := desired["metadata"].(map[string]any)
	if !containsStrings(meta["labels"], live.GetLabels()) || !containsStrings(meta["annotations"], live.GetAnnotations()) {
		return false
	}
	for k, v := range desired {
		switch k {
		case "metadata", "status", "apiVersion", "kind":
			continue
		case "stringData":
			if !holdsStringData(v, live.Object["data"]) {
				return false
			}
			continue
		}
		if !contains(v, live.Object[k]) {
			return false
		}
	}
	return true
}

// holdsStringData says whether a Secret's live data holds the values of
// the stringData fedctl applied: the API server writes stringData into
// data, base64-encoded, and never returns stringData itself.
func holdsStringData(stringData, data any) bool {
	want, _ := stringData.(map[string]any)
	have, _ := data.(map[string]any)
	for k, v := range want {
		s, _ := v.(string)
		if have[k] != base64.StdEncoding.EncodeToString([]byte(s)) {
			return false
		}
	}
	return true
}

func containsStrings(want any, have map[string]string) bool {
	m, _ := want.(map[string]any)
	for k, v := range m {
		if s, _ := v.(string); have[k] != s {
			return false
		}
	}
	return true
}

// contains says whether have holds every field of want with the same value:
// maps may have more keys, lists must have as many items, each containing
// want's. Numbers compare by value whatever their Go type.
func contains(want, have any) bool {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return len(w) == 0 && have == nil
		}
		for k, v := range w {
			if !contains(v, h[k]) {
				return false
			}
		}
		return true
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return len(w) == 0 && have == nil
		}
		for i := range w {
			if !contains(w[i], h[i]) {
				return false
			}
		}
		return true
	}
	if wf, ok := number(want); ok {
		hf, ok := number(have)
		return ok && wf == hf
	}
	return reflect.DeepEqual(want, have)
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
