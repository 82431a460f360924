package typeconfig

// Scope says whether objects of a type live in a namespace.
type Scope string

// Scopes of a type.
const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// Type is a Kubernetes type that can be federated, as resolved by discovery
// when it was enabled. It is also the schema of an entry under "types:" in
// the federation file.
type Type struct {
	Group   string `json:"group,omitempty" yaml:"group,omitempty"`
	Version string `json:"version" yaml:"version"`
	Kind    string `json:"kind" yaml:"kind"`
	Plural  string `json:"plural" yaml:"plural"`
	Scope   Scope  `json:"scope" yaml:"scope"`
}

// APIVersion is the apiVersion of member objects: "v1" for the core group,
// "<group>/<version>" otherwise.
func (t Type) APIVersion() string {
	if t.Group == "" {
		return t.Version
	}
	return t.Group + "/" + t.Version
}

// Name is the type's name as kubefedctl names it: "<plural>.<group>", or
// "<plural>" for the core group.
func (t Type) Name() string {
	if t.Group == "" {
		return t.Plural
	}
	return t.Plural + "." + t.Group
}

// FederatedKind is the kind of the federated type: Federated<Kind>.
func (t Type) FederatedKind() string { return "Federated" + t.Kind }

// Namespaced reports whether objects of the type live in a namespace.
func (t Type) Namespaced() bool { return t.Scope == Namespaced }
