package federation

import (
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Types looks up the type a federated kind carries (typeconfig.Registry).
type Types interface {
	ByFederatedKind(kind string) (typeconfig.Type, bool)
}

// Set is the federated input of one run: what every input dialect compiles
// into, and all that the stages after reading know of the input.
type Set struct {
	// Objects are the federated objects, FederatedNamespaces included, in
	// input order.
	Objects []*Object
	// RSPs are the ReplicaSchedulingPreferences, in input order.
	RSPs []*ReplicaSchedulingPreference
	// Warnings are problems that do not stop a run.
	Warnings []*manifest.Error
	// Unselected are the federated objects a label selector (-l) left
	// out: they are not rendered, but a FederatedNamespace among them
	// still places the objects of its namespace, as without -l.
	Unselected []*Object
	// DNS are the multi-cluster DNS inputs.
	DNS DNS
}

// Namespaces are the FederatedNamespaces of the set, selected or not, by
// name.
func (s *Set) Namespaces() map[string]*Object {
	ns := map[string]*Object{}
	for _, list := range [][]*Object{s.Unselected, s.Objects} {
		for _, o := range list {
			if o.IsNamespace() {
				ns[o.Name] = o
			}
		}
	}
	return ns
}

// Origin says where a federated object came from: the dialect that read it
// and its document's index in the run's input, which orders the objects
// that several dialects read.
type Origin struct {
	Dialect string
	Doc     int
}

// ID names the object in messages: "FederatedDeployment shop/web".
func (o *Object) ID() string {
	if o.Namespace == "" {
		return o.Kind + " " + o.Name
	}
	return o.Kind + " " + o.Namespace + "/" + o.Name
}

// Errorf returns an error at field of the object, with its file and line.
func (o *Object) Errorf(field, format string, args ...any) *manifest.Error {
	e := o.Pos.Errorf(field, format, args...)
	e.Object = o.ID()
	return e
}

// TargetKey is the key an RSP names its target by (TargetKey of the
// preference): KIND/NAMESPACE/NAME.
func (o *Object) TargetKey() string { return o.Kind + "/" + o.Namespace + "/" + o.Name }

// IsNamespace reports whether the object is a FederatedNamespace.
func (o *Object) IsNamespace() bool { return o.Kind == KindPrefix+"Namespace" }

// ID names the preference in messages.
func (r *ReplicaSchedulingPreference) ID() string {
	return RSPKind + " " + r.Namespace + "/" + r.Name
}

// TargetKey is the TargetKey of the object the preference targets.
func (r *ReplicaSchedulingPreference) TargetKey() string {
	return r.Spec.TargetKind + "/" + r.Namespace + "/" + r.Name
}

// Scheduled is a ReplicaSchedulingPreference with the object it targets:
// the object of its targetKind, namespace and name.
type Scheduled struct {
	RSP    *ReplicaSchedulingPreference
	Target *Object // nil when the set has no such object
}

// Scheduled pairs each RSP of the set, in order, with its target, found in
// one lookup each. A target that more than one RSP names is planned by the
// first (render reports the second); Planned says which.
func (s *Set) Scheduled() []Scheduled {
	if len(s.RSPs) == 0 {
		return nil
	}
	byKey := make(map[string]*Object, len(s.Objects))
	for _, o := range s.Objects {
		byKey[o.TargetKey()] = o
	}
	out := make([]Scheduled, len(s.RSPs))
	for i, rsp := range s.RSPs {
		out[i] = Scheduled{RSP: rsp, Target: byKey[rsp.TargetKey()]}
	}
	return out
}

// Planned is the RSP that plans each object of the set that one targets,
// by the object's ID: the first that names it.
func (s *Set) Planned() map[string]*ReplicaSchedulingPreference {
	out := map[string]*ReplicaSchedulingPreference{}
	for _, sc := range s.Scheduled() {
		if sc.Target == nil {
			continue
		}
		if _, dup := out[sc.Target.ID()]; !dup {
			out[sc.Target.ID()] = sc.RSP
		}
	}
	return out
}

// Errorf returns an error at field of the preference, with its file and line.
func (r *ReplicaSchedulingPreference) Errorf(field, format string, args ...any) *manifest.Error {
	e := r.Pos.Errorf(field, format, args...)
	e.Object = r.ID()
	return e
}

// RSPTargetKinds are the federated kinds a ReplicaSchedulingPreference can
// target; KubeFed registers its scheduler for these two only.
var RSPTargetKinds = []string{"FederatedDeployment", "FederatedReplicaSet"}
