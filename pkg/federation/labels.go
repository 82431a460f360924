package federation

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ManagedLabel marks an object in a member cluster as managed by the
// federation, with the same key and value KubeFed's sync controller uses, so
// objects propagated by KubeFed and by fedctl are recognised alike. An object
// labelled "false" is never touched.
const (
	ManagedLabel      = "kubefed.io/managed"
	ManagedLabelValue = "true"
)

// Markers fedctl adds to every member object besides ManagedLabel.
// ManagedByLabel says which tool owns the object (the recommended
// app.kubernetes.io label, so other tools recognise it); SourceAnnotation
// names the federated object it was rendered from, which is how apply finds
// the member objects it owns and which federated object each belongs to.
const (
	ManagedByLabel   = "app.kubernetes.io/managed-by"
	ManagedByValue   = "fedctl"
	SourceAnnotation = "fedctl.io/federated-object"
)

// ManagedBySelector is the label selector of the objects fedctl manages,
// for a List.
const ManagedBySelector = ManagedByLabel + "=" + ManagedByValue

// Annotations fedctl records on each member object it applies, so that a
// later run can tell from a LIST alone whether the object needs a write.
const (
	// HashAnnotation is the sha256 of the canonical JSON of the object fedctl
	// applied, without this annotation.
	HashAnnotation = "fedctl.io/applied-hash"
	// GenerationAnnotation is the metadata.generation the object had after
	// fedctl's last apply; a different live generation means someone else
	// changed its spec since.
	GenerationAnnotation = "fedctl.io/applied-generation"
)

// SourceRef is the value of SourceAnnotation for o:
// "<FederatedKind>/<namespace>/<name>", or "<FederatedKind>/<name>" for
// cluster-scoped objects.
func (o *Object) SourceRef() string {
	if o.Namespace == "" {
		return o.Kind + "/" + o.Name
	}
	return o.Kind + "/" + o.Namespace + "/" + o.Name
}

// Owned says whether obj carries fedctl's identity marker: fedctl created
// it (or adopted it), and may change or delete it.
func Owned(obj metav1.Object) bool {
	return obj.GetLabels()[ManagedByLabel] == ManagedByValue
}

// HandsOff says whether obj is labelled kubefed.io/managed: "false": never
// touched, whoever created it (KubeFed's meaning).
func HandsOff(obj metav1.Object) bool {
	return obj.GetLabels()[ManagedLabel] == "false"
}

// ApplySetPartOfLabel, on every object of a kubectl ApplySet (KEP-3659),
// holds the set's ID: apply adds it to what it applies, and drift checks
// expect it there.
const ApplySetPartOfLabel = "applyset.kubernetes.io/part-of"

// ApplySetIDLabel, on an ApplySet's parent (KEP-3659), holds the set's ID;
// ApplySetToolingAnnotation, on the parent, names the tool that manages the
// set as "name/version" (fedctl's start with ApplySetTooling).
const (
	ApplySetIDLabel           = "applyset.kubernetes.io/id"
	ApplySetToolingAnnotation = "applyset.kubernetes.io/tooling"
	ApplySetTooling           = "fedctl/"
)

// OwnedApplySetParent says whether obj is the parent of an ApplySet that
// fedctl manages ("apply --prune --applyset"): fedctl's bookkeeping, which
// carries no managed-by label because it is not a federated object's.
func OwnedApplySetParent(obj metav1.Object) bool {
	return obj.GetLabels()[ApplySetIDLabel] != "" && strings.HasPrefix(obj.GetAnnotations()[ApplySetToolingAnnotation], ApplySetTooling)
}
