package federation

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/parallel"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Types looks up the type a federated kind carries (typeconfig.Registry).
type Types interface {
	ByFederatedKind(kind string) (typeconfig.Type, bool)
}

// Set is the federated input of one run.
type Set struct {
	// Objects are the federated objects, FederatedNamespaces included, in
	// input order.
	Objects []*Object
	// RSPs are the ReplicaSchedulingPreferences, in input order.
	RSPs []*ReplicaSchedulingPreference
	// Warnings are problems that do not stop a run.
	Warnings []*manifest.Error
}

// DecodeOptions tune Decode.
type DecodeOptions struct {
	// DefaultNamespace is given to namespaced federated objects that have
	// no namespace, as kubectl gives them the context's namespace.
	DefaultNamespace string
}

// controlPlaneGroups hold KubeFed's control-plane objects, which have no
// meaning without a control plane.
var controlPlaneGroups = []string{"core.kubefed.io", "core.kubefed.k8s.io", "multiclusterdns.kubefed.io"}

// Decode turns documents into federated objects and scheduling preferences,
// strictly: every unknown field, wrong value, plain (non-federated) object,
// type that is not enabled and duplicate object is reported, all at once,
// each with its file, line and object. The template of a federated object
// keeps every field.
func Decode(docs []manifest.Document, types Types, opts DecodeOptions) (*Set, error) {
	set := &Set{}
	var errs []error
	seen := map[string]manifest.Positions{}
	for i, d := range decodeAll(docs) {
		doc := docs[i]
		if d.err != nil {
			errs = append(errs, d.err)
			continue
		}
		id := d.head.id()
		switch {
		case d.head.Kind == "":
			errs = append(errs, &manifest.Error{File: doc.File, Line: doc.Line, Object: id, Field: "kind", Err: errors.New("is missing")})
		case d.rsp != nil:
			if d.decodeErr != nil {
				errs = append(errs, withObject(d.decodeErr, id))
				continue
			}
			rsp := d.rsp
			rsp.Pos = d.pos
			if rsp.Namespace == "" {
				rsp.Namespace = opts.DefaultNamespace
			}
			if err := rsp.validate(); err != nil {
				errs = append(errs, err)
				continue
			}
			set.RSPs = append(set.RSPs, rsp)
		case d.obj != nil:
			t, ok := types.ByFederatedKind(d.head.Kind)
			if !ok {
				errs = append(errs, &manifest.Error{File: doc.File, Line: doc.Line, Object: id, Field: "kind", Err: notEnabled(d.head.Kind)})
				continue
			}
			if d.decodeErr != nil {
				errs = append(errs, withObject(d.decodeErr, id))
				continue
			}
			obj := d.obj
			obj.Pos = d.pos
			obj.defaultNamespace(t, opts.DefaultNamespace)
			if err := obj.validate(t); err != nil {
				errs = append(errs, err)
				continue
			}
			key := obj.ID()
			if first, dup := seen[key]; dup {
				errs = append(errs, obj.Errorf("metadata.name", "defined twice (also at %s:%d)", first.File(), first.Line("")))
				continue
			}
			seen[key] = d.pos
			set.Objects = append(set.Objects, obj)
		case slices.Contains(controlPlaneGroups, d.group):
			set.Warnings = append(set.Warnings, &manifest.Error{File: doc.File, Line: doc.Line, Object: id,
				Err: fmt.Errorf("ignored: fedctl has no control plane (enable types with \"fedctl enable\", join clusters with \"fedctl join\")")})
		default:
			errs = append(errs, &manifest.Error{File: doc.File, Line: doc.Line, Object: id,
				Err: fmt.Errorf("is not a federated object; convert it with \"fedctl federate -f %s\"", doc.File)})
		}
	}
	return set, errors.Join(errs...)
}

// decoded is one document parsed and, if it is a federated object or a
// preference, strictly decoded: the work Decode spreads over the CPUs.
type decoded struct {
	err       error // a syntax error or a document that is not an object
	head      head
	group     string
	obj       *Object
	rsp       *ReplicaSchedulingPreference
	pos       manifest.Positions
	decodeErr error
}

// docsPerWorker keeps small inputs, such as tests and single files, on one
// goroutine.
const docsPerWorker = 32

// decodeAll decodes every document, on all CPUs: parsing YAML is most of
// the time of a large render, and documents are independent. Results are in
// input order, so that Decode reports and collects in that order.
func decodeAll(docs []manifest.Document) []decoded {
	out := make([]decoded, len(docs))
	parallel.For(len(docs), docsPerWorker, func(i int) { out[i] = decodeOne(docs[i]) })
	return out
}

// decodeOne decodes a federated object whether or not its type is enabled;
// Decode checks that afterwards, so that only it reads the type registry.
func decodeOne(doc manifest.Document) decoded {
	parsed, h, err := peek(doc)
	if err != nil {
		return decoded{err: err}
	}
	d := decoded{head: h}
	d.group, _, _ = strings.Cut(h.APIVersion, "/")
	if !strings.Contains(h.APIVersion, "/") {
		d.group = ""
	}
	switch {
	case h.Kind == "":
	case h.Kind == RSPKind && (d.group == SchedulingGroup || d.group == LegacySchedulingGroup):
		d.rsp = &ReplicaSchedulingPreference{}
		d.pos, d.decodeErr = parsed.DecodeStrict(d.rsp)
	case d.group == TypesGroup || d.group == LegacyTypesGroup:
		d.obj = &Object{}
		d.pos, d.decodeErr = parsed.DecodeStrict(d.obj)
	}
	return d
}

// head is what Decode needs to know before choosing a type.
type head struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name      string `yaml:"name"`
		Namespace string `yaml:"namespace"`
	} `yaml:"metadata"`
}

func (h head) id() string {
	name := h.Metadata.Name
	if h.Metadata.Namespace != "" {
		name = h.Metadata.Namespace + "/" + name
	}
	kind := h.Kind
	if kind == "" {
		kind = "object"
	}
	return strings.TrimSpace(kind + " " + name)
}

// peek parses doc once, for both the head and the strict decoding that
// follows.
func peek(doc manifest.Document) (*manifest.Parsed, head, error) {
	var h head
	parsed, err := manifest.Parse(doc)
	if err != nil {
		return nil, h, err // a syntax error, with its line
	}
	if err := parsed.Peek(&h); err != nil {
		// Let the strict decoder say what is wrong, with lines.
		_, derr := parsed.DecodeStrict(&struct{}{})
		if derr == nil {
			derr = &manifest.Error{File: doc.File, Line: doc.Line, Err: fmt.Errorf("not a Kubernetes object: %w", err)}
		}
		return nil, h, derr
	}
	return parsed, h, nil
}

func notEnabled(kind string) error {
	target := strings.TrimPrefix(kind, KindPrefix)
	if target == kind || target == "" {
		return fmt.Errorf("%q is not a federated type: federated kinds are Federated<Kind>", kind)
	}
	return fmt.Errorf("%s is not enabled; enable its target type with \"fedctl enable %s\"", kind, strings.ToLower(target))
}

// withObject names the object in every positioned error of err.
func withObject(err error, id string) error {
	var list []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		list = j.Unwrap()
	} else {
		list = []error{err}
	}
	for _, e := range list {
		var me *manifest.Error
		if errors.As(e, &me) && me.Object == "" {
			me.Object = id
		}
	}
	return err
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

// IsNamespace reports whether the object is a FederatedNamespace.
func (o *Object) IsNamespace() bool { return o.Kind == KindPrefix+"Namespace" }

func (o *Object) defaultNamespace(t typeconfig.Type, def string) {
	switch {
	case o.IsNamespace() && o.Namespace == "":
		// A FederatedNamespace lives in the namespace it federates.
		o.Namespace = o.Name
	case t.Namespaced() && o.Namespace == "":
		o.Namespace = def
	}
}

func (o *Object) validate(t typeconfig.Type) error {
	var errs []error
	if o.Name == "" {
		errs = append(errs, o.Errorf("metadata.name", "is required"))
	}
	switch {
	case o.IsNamespace() && o.Namespace != o.Name:
		errs = append(errs, o.Errorf("metadata.namespace", "a FederatedNamespace must be in the namespace it federates: %q, not %q", o.Name, o.Namespace))
	case !t.Namespaced() && !o.IsNamespace() && o.Namespace != "":
		errs = append(errs, o.Errorf("metadata.namespace", "%s is cluster-scoped; remove the namespace %q", t.Kind, o.Namespace))
	}
	if k, ok := o.Spec.Template["kind"].(string); ok && k != t.Kind {
		errs = append(errs, o.Errorf("spec.template.kind", "is %q, but %s federates %s", k, o.Kind, t.Kind))
	}
	for i, c := range o.Spec.Placement.Clusters {
		if c.Name == "" {
			errs = append(errs, o.Errorf(fmt.Sprintf("spec.placement.clusters[%d].name", i), "is required"))
		}
	}
	return errors.Join(errs...)
}

// ID names the preference in messages.
func (r *ReplicaSchedulingPreference) ID() string {
	return RSPKind + " " + r.Namespace + "/" + r.Name
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

func (r *ReplicaSchedulingPreference) validate() error {
	var errs []error
	if r.Name == "" {
		errs = append(errs, r.Errorf("metadata.name", "is required"))
	}
	if !slices.Contains(RSPTargetKinds, r.Spec.TargetKind) {
		errs = append(errs, r.Errorf("spec.targetKind", "must be %s, got %q", strings.Join(RSPTargetKinds, " or "), r.Spec.TargetKind))
	}
	if r.Spec.TotalReplicas < 0 {
		errs = append(errs, r.Errorf("spec.totalReplicas", "must not be negative, got %d", r.Spec.TotalReplicas))
	}
	for _, name := range slices.Sorted(maps.Keys(r.Spec.Clusters)) {
		p := r.Spec.Clusters[name]
		field := "spec.clusters." + name
		if p.MinReplicas < 0 {
			errs = append(errs, r.Errorf(field+".minReplicas", "must not be negative, got %d", p.MinReplicas))
		}
		if p.MaxReplicas != nil && *p.MaxReplicas < 0 {
			errs = append(errs, r.Errorf(field+".maxReplicas", "must not be negative, got %d", *p.MaxReplicas))
		}
		if p.Weight < 0 {
			errs = append(errs, r.Errorf(field+".weight", "must not be negative, got %d", p.Weight))
		}
	}
	return errors.Join(errs...)
}
