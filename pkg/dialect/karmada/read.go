package karmada

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Dialect reads Karmada's policies and the plain objects they select.
type Dialect struct{}

var _ dialect.Dialect = Dialect{}

// Name is the dialect's name in messages.
func (Dialect) Name() string { return "Karmada" }

func isPolicy(h dialect.Head) bool {
	if h.Group() != Group {
		return false
	}
	switch h.Kind {
	case PropagationPolicyKind, ClusterPropagationPolicyKind, OverridePolicyKind, ClusterOverridePolicyKind:
		return true
	}
	return false
}

// Claim takes Karmada's policies and, when the input holds any, every
// plain object no other dialect took: those are the resource templates
// the policies select. Without a policy nothing is claimed, so a plain
// object stays "not a federated object" as before.
func (Dialect) Claim(docs []dialect.Doc, taken []bool) []bool {
	claimed := make([]bool, len(docs))
	found := false
	for i, d := range docs {
		if d.Err == nil && !taken[i] && isPolicy(d.Head) {
			claimed[i], found = true, true
		}
	}
	if !found {
		return claimed
	}
	for i, d := range docs {
		if d.Err != nil || taken[i] || d.Head.Kind == "" || d.Head.APIVersion == "" {
			continue
		}
		if d.Head.Group() == Group || strings.HasSuffix(d.Head.Group(), ".karmada.io") {
			claimed[i] = isPolicy(d.Head) // other Karmada kinds: not ours to read
			continue
		}
		claimed[i] = true
	}
	return claimed
}

// policySet is the input's policies, decoded.
type policySet struct {
	propagation        map[string][]*propagationPolicy // by namespace
	clusterPropagation []*propagationPolicy
	override           map[string][]*overridePolicy // by namespace
	clusterOverride    []*overridePolicy
}

// plain is one resource template.
type plain struct {
	doc  int
	obj  map[string]any
	pos  manifest.Positions
	t    typeconfig.Type
	r    resource
	head dialect.Head
}

// Read decodes the policies strictly and validates them as Karmada's
// webhooks do, then compiles every plain object.
func (Dialect) Read(in dialect.Input, claimed []bool) (*federation.Set, error) {
	set := &federation.Set{}
	ps := &policySet{propagation: map[string][]*propagationPolicy{}, override: map[string][]*overridePolicy{}}
	var errs []error
	var objects []plain
	for i, c := range claimed {
		if !c {
			continue
		}
		doc := &in.Docs[i]
		var err error
		if isPolicy(doc.Head) {
			err = ps.add(in, *doc)
		} else {
			var p *plain
			p, err = readPlain(in, *doc, i)
			if p != nil {
				objects = append(objects, *p)
			}
		}
		doc.Parsed = nil
		if err != nil {
			errs = append(errs, dialect.WithObject(err, doc.Head.ID()))
		}
	}
	if len(errs) > 0 {
		return set, errors.Join(errs...)
	}
	for _, p := range objects {
		obj, warning, err := ps.compile(in, p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if warning != nil {
			set.Warnings = append(set.Warnings, warning)
		}
		if obj != nil {
			set.Objects = append(set.Objects, obj)
		}
	}
	return set, errors.Join(errs...)
}

func (ps *policySet) add(in dialect.Input, doc dialect.Doc) error {
	if v := strings.TrimPrefix(doc.Head.APIVersion, Group+"/"); v != Version {
		return doc.Errorf("apiVersion", "%s is not a version fedctl reads; Karmada policies are %s/%s", doc.Head.APIVersion, Group, Version)
	}
	cluster := strings.HasPrefix(doc.Head.Kind, "Cluster")
	switch doc.Head.Kind {
	case PropagationPolicyKind, ClusterPropagationPolicyKind:
		p := &propagationPolicy{}
		pos, err := doc.Parsed.DecodeStrict(p)
		if err != nil {
			return err
		}
		p.Namespace = policyNamespace(p.Namespace, cluster, in.DefaultNamespace)
		if err := p.validate(pos); err != nil {
			return err
		}
		p.pos = pos
		p.defaults()
		if cluster {
			ps.clusterPropagation = append(ps.clusterPropagation, p)
			return nil
		}
		for i := range p.Spec.ResourceSelectors {
			// A PropagationPolicy selects in its own namespace only.
			p.Spec.ResourceSelectors[i].Namespace = p.Namespace
		}
		ps.propagation[p.Namespace] = append(ps.propagation[p.Namespace], p)
	default:
		p := &overridePolicy{}
		pos, err := doc.Parsed.DecodeStrict(p)
		if err != nil {
			return err
		}
		p.Namespace = policyNamespace(p.Namespace, cluster, in.DefaultNamespace)
		if err := p.validate(pos); err != nil {
			return err
		}
		if cluster {
			ps.clusterOverride = append(ps.clusterOverride, p)
			return nil
		}
		for i := range p.Spec.ResourceSelectors {
			// The mutating webhook fills in the policy's namespace
			// (pkg/webhook/overridepolicy/mutating.go).
			p.Spec.ResourceSelectors[i].Namespace = p.Namespace
		}
		ps.override[p.Namespace] = append(ps.override[p.Namespace], p)
	}
	return nil
}

// policyNamespace is a policy's namespace: none for the Cluster* kinds,
// the default namespace (-n) for a namespaced one that names none.
func policyNamespace(ns string, cluster bool, def string) string {
	switch {
	case cluster:
		return ""
	case ns == "":
		return def
	}
	return ns
}

// systemNamespace says whether Karmada never propagates objects in ns:
// kube-* (the detector's default --skipped-propagating-namespaces) and its
// own reserved namespaces (pkg/util/names, IsReservedNamespace).
func systemNamespace(ns string) bool {
	return strings.HasPrefix(ns, "kube-") || ns == "karmada-system" || ns == "karmada-cluster" || strings.HasPrefix(ns, "karmada-es-")
}

func readPlain(in dialect.Input, doc dialect.Doc, i int) (*plain, error) {
	h := doc.Head
	t, ok := in.Types.ByFederatedKind(federation.KindPrefix + h.Kind)
	if !ok || t.APIVersion() != h.APIVersion {
		if ok {
			return nil, doc.Errorf("apiVersion", "%s %s is not the version of the enabled type %s; write it as %s", h.Kind, h.APIVersion, t.Name(), t.APIVersion())
		}
		return nil, doc.Errorf("kind", "%s is not an enabled type; enable it with \"fedctl enable %s\"", h.Kind, strings.ToLower(h.Kind))
	}
	var obj federation.Template
	pos, err := doc.Parsed.DecodeStrict(&obj)
	if err != nil {
		return nil, err
	}
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	name, _ := meta["name"].(string)
	if name == "" {
		return nil, pos.Errorf("metadata.name", "is required")
	}
	ns, _ := meta["namespace"].(string)
	if t.Namespaced() && ns == "" {
		ns = in.DefaultNamespace
		meta["namespace"] = ns
	}
	if !t.Namespaced() {
		ns = ""
	}
	r := resource{APIVersion: h.APIVersion, Kind: h.Kind, Namespace: ns, Name: name, Labels: map[string]string{}}
	if labels, ok := meta["labels"].(map[string]any); ok {
		for k, v := range labels {
			r.Labels[k] = fmt.Sprint(v)
		}
	}
	return &plain{doc: i, obj: obj, pos: pos, t: t, r: r, head: h}, nil
}

var (
	replicaSchedulingTypes = []string{"Duplicated", "Divided"}
	divisionPreferences    = []string{"Aggregated", "Weighted"}
	spreadFields           = []string{"cluster", "region", "zone", "provider"}
	overriderOperators     = []string{"add", "remove", "replace"}
	imageComponents        = []string{"Registry", "Repository", "Tag"}
)

// validate checks what Karmada's webhooks check
// (pkg/util/validation/validation.go and pkg/webhook/propagationpolicy).
func (p *propagationPolicy) validate(pos manifest.Positions) error {
	var errs []error
	if p.Name == "" {
		errs = append(errs, pos.Errorf("metadata.name", "is required"))
	}
	if len(p.Spec.ResourceSelectors) == 0 {
		errs = append(errs, pos.Errorf("spec.resourceSelectors", "is required: name at least one apiVersion and kind"))
	}
	errs = append(errs, validateSelectors(pos, p.Spec.ResourceSelectors, p.Namespace)...)
	pl := p.Spec.Placement
	if pl.ClusterAffinity != nil && len(pl.ClusterAffinities) > 0 {
		errs = append(errs, pos.Errorf("spec.placement", "clusterAffinity and clusterAffinities cannot both be set"))
	}
	if pl.ClusterAffinity != nil {
		errs = append(errs, validateAffinity(pos, "spec.placement.clusterAffinity", *pl.ClusterAffinity)...)
	}
	seen := map[string]bool{}
	for i, term := range pl.ClusterAffinities {
		path := fmt.Sprintf("spec.placement.clusterAffinities[%d]", i)
		if term.AffinityName == "" {
			errs = append(errs, pos.Errorf(path+".affinityName", "is required"))
		} else if seen[term.AffinityName] {
			errs = append(errs, pos.Errorf(path+".affinityName", "%q is used twice", term.AffinityName))
		}
		seen[term.AffinityName] = true
		errs = append(errs, validateAffinity(pos, path, term.clusterAffinity)...)
	}
	for i, sc := range pl.SpreadConstraints {
		path := fmt.Sprintf("spec.placement.spreadConstraints[%d]", i)
		if (sc.SpreadByField == "") == (sc.SpreadByLabel == "") {
			errs = append(errs, pos.Errorf(path, "set exactly one of spreadByField and spreadByLabel"))
		}
		if sc.SpreadByField != "" && !slices.Contains(spreadFields, sc.SpreadByField) {
			errs = append(errs, pos.Errorf(path+".spreadByField", "must be one of %s, got %q", strings.Join(spreadFields, ", "), sc.SpreadByField))
		}
		if sc.MaxGroups > 0 && sc.MinGroups > sc.MaxGroups {
			errs = append(errs, pos.Errorf(path, "minGroups %d is greater than maxGroups %d", sc.MinGroups, sc.MaxGroups))
		}
	}
	if rs := pl.ReplicaScheduling; rs != nil {
		if rs.ReplicaSchedulingType != "" && !slices.Contains(replicaSchedulingTypes, rs.ReplicaSchedulingType) {
			errs = append(errs, pos.Errorf("spec.placement.replicaScheduling.replicaSchedulingType", "must be Duplicated or Divided, got %q", rs.ReplicaSchedulingType))
		}
		if rs.ReplicaDivisionPreference != "" && !slices.Contains(divisionPreferences, rs.ReplicaDivisionPreference) {
			errs = append(errs, pos.Errorf("spec.placement.replicaScheduling.replicaDivisionPreference", "must be Aggregated or Weighted, got %q", rs.ReplicaDivisionPreference))
		}
		if wp := rs.WeightPreference; wp != nil {
			if wp.DynamicWeight != "" && wp.DynamicWeight != "AvailableReplicas" {
				errs = append(errs, pos.Errorf("spec.placement.replicaScheduling.weightPreference.dynamicWeight", "must be AvailableReplicas, got %q", wp.DynamicWeight))
			}
			for i, w := range wp.StaticWeightList {
				path := fmt.Sprintf("spec.placement.replicaScheduling.weightPreference.staticWeightList[%d]", i)
				if w.Weight < 1 {
					errs = append(errs, pos.Errorf(path+".weight", "must be at least 1, got %d", w.Weight))
				}
				errs = append(errs, validateAffinity(pos, path+".targetCluster", w.TargetCluster)...)
			}
		}
	}
	return errors.Join(errs...)
}

// validateSelectors checks resource selectors; own is a namespaced
// policy's namespace ("" for the Cluster* kinds), the only one its
// selectors may name.
func validateSelectors(pos manifest.Positions, selectors []resourceSelector, own string) []error {
	var errs []error
	for i, rs := range selectors {
		path := fmt.Sprintf("spec.resourceSelectors[%d]", i)
		if rs.APIVersion == "" {
			errs = append(errs, pos.Errorf(path+".apiVersion", "is required"))
		}
		if rs.Kind == "" {
			errs = append(errs, pos.Errorf(path+".kind", "is required"))
		}
		if own != "" && rs.Namespace != "" && rs.Namespace != own {
			errs = append(errs, pos.Errorf(path+".namespace", "is %q, but a namespaced policy selects in its own namespace %q only; remove namespace or use a Cluster* policy", rs.Namespace, own))
		}
		if rs.LabelSelector != nil {
			if _, err := metav1.LabelSelectorAsSelector(rs.LabelSelector); err != nil {
				errs = append(errs, pos.Errorf(path+".labelSelector", "%v", err))
			}
		}
	}
	return errs
}

func validateAffinity(pos manifest.Positions, path string, a clusterAffinity) []error {
	var errs []error
	if a.LabelSelector != nil {
		if _, err := metav1.LabelSelectorAsSelector(a.LabelSelector); err != nil {
			errs = append(errs, pos.Errorf(path+".labelSelector", "%v", err))
		}
	}
	if a.FieldSelector != nil {
		for i, r := range a.FieldSelector.MatchExpressions {
			p := fmt.Sprintf("%s.fieldSelector.matchExpressions[%d]", path, i)
			if r.Key != providerField && r.Key != regionField && r.Key != zoneField {
				errs = append(errs, pos.Errorf(p+".key", "must be provider, region or zone, got %q", r.Key))
			}
			if r.Operator != "In" && r.Operator != "NotIn" {
				errs = append(errs, pos.Errorf(p+".operator", "must be In or NotIn, got %q", r.Operator))
			}
		}
	}
	return errs
}

// emptyOverriders is Karmada's emptyOverrides: none of the overriders but
// fieldOverrider, which it does not look at.
func emptyOverriders(o overriders) bool {
	return len(o.Plaintext) == 0 && len(o.ImageOverrider) == 0 && len(o.CommandOverrider) == 0 && len(o.ArgsOverrider) == 0 &&
		len(o.LabelsOverrider) == 0 && len(o.AnnotationsOverrider) == 0
}

func (p *overridePolicy) validate(pos manifest.Positions) error {
	var errs []error
	if p.Name == "" {
		errs = append(errs, pos.Errorf("metadata.name", "is required"))
	}
	errs = append(errs, validateSelectors(pos, p.Spec.ResourceSelectors, p.Namespace)...)
	// Karmada's webhook (validation.go, emptyOverrides) refuses the
	// deprecated overriders beside overrideRules only when they hold one
	// of the first six; with rules they are not used, fieldOverrider too.
	withRules := len(p.Spec.OverrideRules) > 0
	if withRules && (p.Spec.TargetCluster != nil || p.Spec.Overriders != nil && !emptyOverriders(*p.Spec.Overriders)) {
		errs = append(errs, pos.Errorf("spec", "overrideRules cannot be used with the deprecated targetCluster and overriders"))
	}
	if p.Spec.TargetCluster != nil {
		errs = append(errs, validateAffinity(pos, "spec.targetCluster", *p.Spec.TargetCluster)...)
	}
	if p.Spec.Overriders != nil && !withRules {
		errs = append(errs, validateOverriders(pos, "spec.overriders", *p.Spec.Overriders)...)
	}
	for i, r := range p.Spec.OverrideRules {
		path := fmt.Sprintf("spec.overrideRules[%d]", i)
		if r.TargetCluster != nil {
			errs = append(errs, validateAffinity(pos, path+".targetCluster", *r.TargetCluster)...)
		}
		errs = append(errs, validateOverriders(pos, path+".overriders", r.Overriders)...)
	}
	return errors.Join(errs...)
}

func validateOverriders(pos manifest.Positions, path string, o overriders) []error {
	var errs []error
	operator := func(p, op string, allowed []string) {
		if !slices.Contains(allowed, op) {
			errs = append(errs, pos.Errorf(p+".operator", "must be one of %s, got %q", strings.Join(allowed, ", "), op))
		}
	}
	for i, x := range o.Plaintext {
		p := fmt.Sprintf("%s.plaintext[%d]", path, i)
		operator(p, x.Operator, overriderOperators)
		if !strings.HasPrefix(x.Path, "/") {
			errs = append(errs, pos.Errorf(p+".path", "must be a JSON pointer starting with /, got %q", x.Path))
		}
	}
	for i, x := range o.ImageOverrider {
		p := fmt.Sprintf("%s.imageOverrider[%d]", path, i)
		operator(p, x.Operator, overriderOperators)
		if !slices.Contains(imageComponents, x.Component) {
			errs = append(errs, pos.Errorf(p+".component", "must be one of %s, got %q", strings.Join(imageComponents, ", "), x.Component))
		}
		if x.Predicate != nil && !strings.HasPrefix(x.Predicate.Path, "/") {
			errs = append(errs, pos.Errorf(p+".predicate.path", "must start with /, got %q", x.Predicate.Path))
		}
	}
	for _, list := range []struct {
		name string
		l    []commandArgsOverrider
	}{{"commandOverrider", o.CommandOverrider}, {"argsOverrider", o.ArgsOverrider}} {
		for i, x := range list.l {
			p := fmt.Sprintf("%s.%s[%d]", path, list.name, i)
			operator(p, x.Operator, []string{"add", "remove"})
			if x.ContainerName == "" {
				errs = append(errs, pos.Errorf(p+".containerName", "is required"))
			}
		}
	}
	for _, list := range []struct {
		name string
		l    []labelAnnotationOverrider
	}{{"labelsOverrider", o.LabelsOverrider}, {"annotationsOverrider", o.AnnotationsOverrider}} {
		for i, x := range list.l {
			operator(fmt.Sprintf("%s.%s[%d]", path, list.name, i), x.Operator, overriderOperators)
		}
	}
	for i, x := range o.FieldOverrider {
		p := fmt.Sprintf("%s.fieldOverrider[%d]", path, i)
		if !strings.HasPrefix(x.FieldPath, "/") {
			errs = append(errs, pos.Errorf(p+".fieldPath", "must be a JSON pointer starting with /, got %q", x.FieldPath))
		}
		if (len(x.JSON) > 0) == (len(x.YAML) > 0) {
			errs = append(errs, pos.Errorf(p, "set exactly one of json and yaml"))
		}
		for _, ops := range []struct {
			name string
			list []fieldPatchOp
		}{{"json", x.JSON}, {"yaml", x.YAML}} {
			for j, sub := range ops.list {
				sp := fmt.Sprintf("%s.%s[%d]", p, ops.name, j)
				operator(sp, sub.Operator, overriderOperators)
				if sub.Operator == "remove" && len(sub.Value) > 0 {
					errs = append(errs, pos.Errorf(sp+".value", "must be empty for remove"))
				}
				if sub.Operator != "remove" && len(sub.Value) == 0 {
					errs = append(errs, pos.Errorf(sp+".value", "is required for %s", sub.Operator))
				}
			}
		}
	}
	return errs
}

// defaults fills in what Karmada's API defaults before anything reads a
// policy: replicaScheduling's type is Divided when unset (the CRD's
// +kubebuilder:default, pkg/apis/policy/v1alpha1/propagation_types.go),
// and a Divided policy without a division preference is Weighted (the
// mutating webhook, pkg/webhook/propagationpolicy/mutating.go). So
// "replicaScheduling: {}" divides by equal weights.
func (p *propagationPolicy) defaults() {
	rs := p.Spec.Placement.ReplicaScheduling
	if rs == nil {
		return
	}
	if rs.ReplicaSchedulingType == "" {
		rs.ReplicaSchedulingType = "Divided"
	}
	if rs.ReplicaSchedulingType == "Divided" && rs.ReplicaDivisionPreference == "" {
		rs.ReplicaDivisionPreference = "Weighted"
	}
}
