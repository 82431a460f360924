package kubefed

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Dialect reads KubeFed's federated objects.
type Dialect struct{}

var (
	_ dialect.Dialect      = Dialect{}
	_ dialect.EarlyDecoder = Dialect{}
)

// Name is the dialect's name in messages.
func (Dialect) Name() string { return "KubeFed" }

// controlPlaneGroups hold KubeFed's control-plane objects, which have no
// meaning without a control plane.
var controlPlaneGroups = []string{"core.kubefed.io", "core.kubefed.k8s.io", federation.DNSGroup, federation.LegacyDNSGroup}

// isDNS says whether h is one of the multi-cluster DNS inputs fedctl reads
// (a Domain, a ServiceDNSRecord, an IngressDNSRecord), in either group.
func isDNS(h dialect.Head) bool {
	g := h.Group()
	return (g == federation.DNSGroup || g == federation.LegacyDNSGroup) &&
		slices.Contains([]string{federation.DomainKind, federation.ServiceDNSRecordKind, federation.IngressDNSRecordKind}, h.Kind)
}

// Claim takes every object of KubeFed's groups that has a kind.
func (Dialect) Claim(docs []dialect.Doc, _ []bool) []bool {
	claimed := make([]bool, len(docs))
	for i, d := range docs {
		claimed[i] = d.Err == nil && d.Head.Kind != "" && (isRSP(d.Head) || isFederated(d.Head) || slices.Contains(controlPlaneGroups, d.Head.Group()))
	}
	return claimed
}

// isRSP and isFederated claim KubeFed's groups at any version, so that an
// unknown version is reported as such rather than as a plain object.
func isRSP(h dialect.Head) bool {
	g := h.Group()
	return h.Kind == federation.RSPKind && (g == federation.SchedulingGroup || g == federation.LegacySchedulingGroup)
}

func isFederated(h dialect.Head) bool {
	g := h.Group()
	return g == federation.TypesGroup || g == federation.LegacyTypesGroup
}

// checkVersion says which versions fedctl reads when h's is another.
func checkVersion(doc dialect.Doc) error {
	h := doc.Head
	want := federation.TypesVersion
	if isRSP(h) {
		want = federation.SchedulingVersion
	}
	if version := strings.TrimPrefix(h.APIVersion, h.Group()+"/"); version == want {
		return nil
	}
	return doc.Errorf("apiVersion", "%s is not a version fedctl reads; %s is read as %s/%s (or %s/%s)", h.APIVersion, h.Kind,
		h.Group(), want, otherGroup(h.Group()), want)
}

// otherGroup is the group's name in the other KubeFed era (kubefed.io and
// kubefed.k8s.io).
func otherGroup(group string) string {
	if base, ok := strings.CutSuffix(group, ".kubefed.k8s.io"); ok {
		return base + ".kubefed.io"
	}
	return strings.TrimSuffix(group, ".kubefed.io") + ".kubefed.k8s.io"
}

// decoded is one claimed document strictly decoded, by DecodeEarly in
// the pipeline's parse workers.
type decoded struct {
	obj *federation.Object
	rsp *federation.ReplicaSchedulingPreference
	// One of the DNS inputs, for a DNS document.
	domain  *federation.Domain
	service *federation.ServiceDNSRecord
	ingress *federation.IngressDNSRecord
	pos     manifest.Positions
	err     error
}

// Read checks and collects the claimed documents, which DecodeEarly
// decoded strictly: every unknown field, wrong value, type that is not
// enabled and invalid object is reported, all at once, each with its file,
// line and object. The template of a federated object keeps every field.
func (Dialect) Read(in dialect.Input, claimed []bool) (*federation.Set, error) {
	set := &federation.Set{}
	var errs []error
	for i, c := range claimed {
		if !c {
			continue
		}
		doc := in.Docs[i]
		d, ok := doc.Early.(decoded)
		if !ok { // parsed without the early decoders (only ever in tests)
			d = decodeOne(doc)
		}
		id := doc.Head.ID()
		if d.rsp != nil || d.obj != nil {
			if err := checkVersion(doc); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		switch {
		case d.rsp != nil:
			if d.err != nil {
				errs = append(errs, dialect.WithObject(d.err, id))
				continue
			}
			rsp := d.rsp
			rsp.Pos = d.pos
			if rsp.Namespace == "" {
				rsp.Namespace = in.DefaultNamespace
			}
			if err := validateRSP(rsp); err != nil {
				errs = append(errs, err)
				continue
			}
			set.RSPs = append(set.RSPs, rsp)
		case d.obj != nil:
			t, ok := in.Types.ByFederatedKind(doc.Head.Kind)
			if !ok {
				errs = append(errs, doc.Errorf("kind", "%s", notEnabled(doc.Head.Kind)))
				continue
			}
			if d.err != nil {
				errs = append(errs, dialect.WithObject(d.err, id))
				continue
			}
			obj := d.obj
			obj.Pos = d.pos
			obj.Origin = federation.Origin{Dialect: Dialect{}.Name(), Doc: i}
			defaultNamespace(obj, t, in.DefaultNamespace)
			if err := validate(obj, t); err != nil {
				errs = append(errs, err)
				continue
			}
			set.Objects = append(set.Objects, obj)
		case isDNS(doc.Head):
			if err := addDNS(&set.DNS, d, doc, in.DefaultNamespace); err != nil {
				errs = append(errs, err)
			}
		default:
			set.Warnings = append(set.Warnings, &manifest.Error{File: doc.File, Line: doc.Line, Object: id,
				Err: fmt.Errorf("ignored: fedctl has no control plane (enable types with \"fedctl enable\", join clusters with \"fedctl join\")")})
		}
	}
	return set, errors.Join(errs...)
}

// DecodeEarly decodes, right after parsing and on all CPUs, the documents
// Claim takes because of their Head alone: federated objects, RSPs and DNS
// records (Claim's other documents, KubeFed's control-plane objects, need
// no decoding). Read then only checks and collects.
func (Dialect) DecodeEarly(doc *dialect.Doc) bool {
	if doc.Head.Kind == "" || (!isRSP(doc.Head) && !isFederated(doc.Head) && !isDNS(doc.Head)) {
		return false
	}
	doc.Early = decodeOne(*doc)
	doc.Parsed = nil // done with: free it now
	return true
}

// decodeOne decodes a federated object whether or not its type is enabled;
// Read checks that afterwards, so that only Read reads the type registry.
func decodeOne(doc dialect.Doc) decoded {
	var d decoded
	switch {
	case isRSP(doc.Head):
		d.rsp = &federation.ReplicaSchedulingPreference{}
		d.pos, d.err = doc.Parsed.DecodeStrict(d.rsp)
	case isFederated(doc.Head):
		d.obj = &federation.Object{}
		d.pos, d.err = doc.Parsed.DecodeStrict(d.obj)
	case isDNS(doc.Head):
		decodeDNS(&d, doc)
	}
	return d
}

func notEnabled(kind string) error {
	target := strings.TrimPrefix(kind, federation.KindPrefix)
	if target == kind || target == "" {
		return fmt.Errorf("%q is not a federated type: federated kinds are Federated<Kind>", kind)
	}
	return fmt.Errorf("%s is not enabled; enable its target type with \"fedctl enable %s\"", kind, strings.ToLower(target))
}

func defaultNamespace(o *federation.Object, t typeconfig.Type, def string) {
	switch {
	case o.IsNamespace() && o.Namespace == "":
		// A FederatedNamespace lives in the namespace it federates.
		o.Namespace = o.Name
	case t.Namespaced() && o.Namespace == "":
		o.Namespace = def
	}
}

func validate(o *federation.Object, t typeconfig.Type) error {
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

func validateRSP(r *federation.ReplicaSchedulingPreference) error {
	var errs []error
	if r.Name == "" {
		errs = append(errs, r.Errorf("metadata.name", "is required"))
	}
	if !slices.Contains(federation.RSPTargetKinds, r.Spec.TargetKind) {
		errs = append(errs, r.Errorf("spec.targetKind", "must be %s, got %q", strings.Join(federation.RSPTargetKinds, " or "), r.Spec.TargetKind))
	}
	if !r.Pos.Has("spec.totalReplicas") {
		// required by KubeFed's CRD: the API server refuses such a
		// preference, which then plans nothing (read as 0 it would scale
		// the target to nothing everywhere)
		errs = append(errs, r.Errorf("spec", "totalReplicas is required"))
	} else if r.Spec.TotalReplicas < 0 {
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
