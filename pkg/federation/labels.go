package federation

// ManagedLabel marks an object in a member cluster as managed by the
// federation, with the same key and value KubeFed's sync controller uses, so
// objects propagated by KubeFed and by fedctl are recognised alike. An object
// labelled "false" is never touched.
const (
	ManagedLabel      = "kubefed.io/managed"
	ManagedLabelValue = "true"
)
