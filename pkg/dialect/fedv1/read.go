package fedv1

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fedctl/fedctl/pkg/dialect"
	"github.com/fedctl/fedctl/pkg/dialect/karmada"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/placement"
)

// The annotations that make a plain workload Federation v1 input, by kind.
const (
	DeploymentPreferences = "federation.kubernetes.io/deployment-preferences"
	ReplicaSetPreferences = "federation.kubernetes.io/replica-set-preferences"
)

// ClusterSelector is Federation v1's placement annotation: a JSON list of
// {key, operator, values} that member labels must all satisfy
// (pkg/federation-controller/util/clusterselector/clusterselector.go).
const ClusterSelector = "federation.alpha.kubernetes.io/cluster-selector"

// Dialect reads Federation v1's annotated workloads.
type Dialect struct{}

var _ dialect.Dialect = Dialect{}

// Name is the dialect's name in messages.
func (Dialect) Name() string { return "Federation v1" }

// preferenceKey is the annotation a document's kind is split by, or "" for
// a document this dialect never reads as a workload. Old API versions are
// claimed too, so that they are reported as such rather than as plain
// objects.
func preferenceKey(h dialect.Head) string {
	if g := h.Group(); g != "apps" && g != "extensions" {
		return ""
	}
	switch h.Kind {
	case "Deployment":
		return DeploymentPreferences
	case "ReplicaSet":
		return ReplicaSetPreferences
	}
	return ""
}

// annotated peeks at a document's annotations.
type annotated struct {
	Metadata struct {
		Annotations map[string]any `yaml:"annotations"`
	} `yaml:"metadata"`
}

func isNamespace(h dialect.Head) bool { return h.APIVersion == "v1" && h.Kind == "Namespace" }

// Claim takes the Deployments and ReplicaSets that carry their preferences
// annotation and, when there is one, the plain Namespaces of the input:
// in Federation v1 a Namespace created in the federation went to every
// member, and the workloads need theirs placed (KubeFed's rule).
func (Dialect) Claim(docs []dialect.Doc, _ []bool) []bool {
	claimed := make([]bool, len(docs))
	workloads := false
	for i, d := range docs {
		key := preferenceKey(d.Head)
		if d.Err != nil || d.Parsed == nil || key == "" {
			continue
		}
		var a annotated
		if d.Parsed.Peek(&a) != nil {
			continue
		}
		if _, ok := a.Metadata.Annotations[key]; ok {
			claimed[i], workloads = true, true
		}
	}
	if workloads {
		for i, d := range docs {
			if d.Err == nil && d.Parsed != nil && isNamespace(d.Head) {
				claimed[i] = true
			}
		}
	}
	return claimed
}

// preferences is the annotation's JSON. Federation v1's struct had no JSON
// tags, so encoding/json matched its fields in any case, and ignored
// unknown ones; so does this.
type preferences struct {
	Rebalance bool
	Clusters  map[string]federation.ClusterPreferences
}

// Read compiles the claimed documents: each workload into a Federated<Kind>
// placed on every member plus a ReplicaSchedulingPreference of the same
// name, each Namespace into a FederatedNamespace placed on every member.
// The template is the object without apiVersion, kind, name, namespace,
// status and the preferences annotation (which is not sent to members).
func (Dialect) Read(in dialect.Input, claimed []bool) (*federation.Set, error) {
	set := &federation.Set{}
	var errs []error
	// Karmada's propagation policies in the same input place the
	// workloads they select (the annotation still divides the replicas).
	policies := karmada.ReadPolicies(in)
	for i, c := range claimed {
		if !c {
			continue
		}
		doc := &in.Docs[i]
		obj, rsp, warning, err := readOne(in, *doc)
		doc.Parsed = nil // done with: free it now
		if err == nil && rsp != nil {
			err = placeByPolicy(in, policies, doc.Head, obj, rsp)
		}
		if err != nil {
			errs = append(errs, dialect.WithObject(err, doc.Head.ID()))
			continue
		}
		if warning != nil {
			set.Warnings = append(set.Warnings, warning)
		}
		obj.Origin = federation.Origin{Dialect: Dialect{}.Name(), Doc: i}
		set.Objects = append(set.Objects, obj)
		if rsp != nil {
			set.RSPs = append(set.RSPs, rsp)
		}
	}
	return set, errors.Join(errs...)
}

// everyMember is the placement of Federation v1's objects: an empty
// selector, which selects every member.
func everyMember() federation.Placement {
	return federation.Placement{ClusterSelector: &metav1.LabelSelector{}}
}

func readOne(in dialect.Input, doc dialect.Doc) (*federation.Object, *federation.ReplicaSchedulingPreference, *manifest.Error, error) {
	h := doc.Head
	if !isNamespace(h) && h.APIVersion != "apps/v1" {
		return nil, nil, nil, doc.Errorf("apiVersion", "%s is not a version fedctl reads for a Federation v1 %s; write it as apps/v1 (the annotation is read there)", h.APIVersion, h.Kind)
	}
	kind := federation.KindPrefix + h.Kind
	t, ok := in.Types.ByFederatedKind(kind)
	if !ok {
		return nil, nil, nil, doc.Errorf("kind", "%s is not enabled; enable it with \"fedctl enable %s\"", kind, h.Kind)
	}
	var tmpl federation.Template
	pos, err := doc.Parsed.DecodeStrict(&tmpl)
	if err != nil {
		return nil, nil, nil, err
	}
	// The decoder records no lines inside a free-form object: errors about
	// the template point at the document, those about the annotation at
	// its line (annotationAt).
	meta, _ := tmpl["metadata"].(map[string]any)
	obj := &federation.Object{
		TypeMeta: metav1.TypeMeta{APIVersion: federation.TypesGroup + "/" + federation.TypesVersion, Kind: kind},
		Pos:      pos,
	}
	obj.Name, _ = meta["name"].(string)
	obj.Namespace, _ = meta["namespace"].(string)
	if obj.Name == "" {
		return nil, nil, nil, pos.Errorf("metadata.name", "is required")
	}
	switch {
	case isNamespace(h):
		obj.Namespace = obj.Name // a FederatedNamespace lives in its namespace
	case t.Namespaced() && obj.Namespace == "":
		obj.Namespace = in.DefaultNamespace
	}
	if labels, ok := meta["labels"].(map[string]any); ok {
		obj.Labels = map[string]string{}
		for k, v := range labels {
			obj.Labels[k] = fmt.Sprint(v)
		}
	}
	delete(tmpl, "apiVersion")
	delete(tmpl, "kind")
	delete(tmpl, "status")
	delete(meta, "name")
	delete(meta, "namespace")
	obj.Spec.Template = tmpl
	obj.Spec.Placement = everyMember()
	if isNamespace(h) {
		cleanMeta(tmpl, meta)
		return obj, nil, nil, nil
	}

	key := preferenceKey(h)
	annotations, _ := meta["annotations"].(map[string]any)
	raw, isString := annotations[key].(string)
	delete(annotations, key)
	if len(annotations) == 0 {
		delete(meta, "annotations")
	}
	cleanMeta(tmpl, meta)
	sel, bySelector := annotations[ClusterSelector]
	if bySelector {
		delete(annotations, ClusterSelector)
		if len(annotations) == 0 {
			delete(meta, "annotations")
			cleanMeta(tmpl, meta)
		}
		placement, err := clusterSelector(sel, annotationAt(doc, ClusterSelector))
		if err != nil {
			return nil, nil, nil, err
		}
		obj.Spec.Placement = placement
	}
	at := annotationAt(doc, key)
	if !isString {
		return nil, nil, nil, at.errorf("must be a string holding JSON, e.g. '{\"clusters\": {\"*\": {\"weight\": 1}}}'")
	}
	prefs, warning := parsePreferences(raw, at)
	rsp := &federation.ReplicaSchedulingPreference{
		TypeMeta:   metav1.TypeMeta{APIVersion: federation.SchedulingGroup + "/" + federation.SchedulingVersion, Kind: federation.RSPKind},
		ObjectMeta: metav1.ObjectMeta{Name: obj.Name, Namespace: obj.Namespace},
		Spec: federation.RSPSpec{
			TargetKind: kind, TotalReplicas: replicas(tmpl), Rebalance: prefs.Rebalance, Clusters: prefs.Clusters,
			// Federation v1 plans over the clusters the selector
			// accepts (SendToCluster, then GetSchedule over those)
			IntersectWithClusterSelector: bySelector,
		},
		Pos: pos,
	}
	if err := validate(rsp, pos, at); err != nil {
		return nil, nil, nil, err
	}
	return obj, rsp, warning, nil
}

// cleanMeta drops a template's metadata once nothing is left in it.
func cleanMeta(tmpl federation.Template, meta map[string]any) {
	if len(meta) == 0 {
		delete(tmpl, "metadata")
	}
}

// annotation locates the preferences annotation in its document, for
// messages: the strict decoder records no lines inside a free-form object.
type annotation struct {
	doc   dialect.Doc
	field string
	line  int
}

func annotationAt(doc dialect.Doc, key string) annotation {
	a := annotation{doc: doc, field: "metadata.annotations." + key, line: doc.Line}
	for i, l := range strings.Split(string(doc.Data), "\n") {
		if strings.Contains(l, key) {
			a.line = doc.Line + i
			break
		}
	}
	return a
}

func (a annotation) errorf(format string, args ...any) *manifest.Error {
	return &manifest.Error{File: a.doc.File, Line: a.line, Field: a.field, Err: fmt.Errorf(format, args...)}
}

// parsePreferences reads the annotation. JSON that does not parse falls
// back to Federation v1's default, the even split, with a warning where
// Federation v1 only logged "using default".
func parsePreferences(raw string, at annotation) (preferences, *manifest.Error) {
	var p preferences
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		w := at.errorf("is not valid JSON (%v); the replicas are divided evenly over every member, as Federation v1 did", err)
		w.Object = at.doc.Head.ID() // as the errors name it: the user's document
		return preferences{Clusters: map[string]federation.ClusterPreferences{"*": {Weight: 1}}}, w
	}
	if len(p.Clusters) == 0 {
		// Federation v1 fell back to the even split only for an annotation
		// that is missing or does not parse; one that parses with no
		// clusters planned 0 everywhere (KubeFed, and the planner here,
		// read empty clusters as {"*": {weight: 1}} instead).
		p.Clusters = map[string]federation.ClusterPreferences{"*": {Weight: 0}}
	}
	return p, nil
}

// replicas is the workload's spec.replicas, 1 when unset (the API
// server's default).
func replicas(tmpl federation.Template) int32 {
	spec, _ := tmpl["spec"].(map[string]any)
	switch n := spec["replicas"].(type) {
	case int64:
		return int32(n)
	case float64:
		return int32(n)
	}
	return 1
}

func validate(rsp *federation.ReplicaSchedulingPreference, pos manifest.Positions, at annotation) error {
	var errs []error
	if rsp.Spec.TotalReplicas < 0 {
		errs = append(errs, pos.Errorf("spec.template.spec.replicas", "must not be negative, got %d", rsp.Spec.TotalReplicas))
	}
	for _, name := range slices.Sorted(maps.Keys(rsp.Spec.Clusters)) {
		p := rsp.Spec.Clusters[name]
		switch {
		case p.MinReplicas < 0:
			errs = append(errs, at.errorf("clusters.%s.minReplicas must not be negative, got %d", name, p.MinReplicas))
		case p.MaxReplicas != nil && *p.MaxReplicas < 0:
			errs = append(errs, at.errorf("clusters.%s.maxReplicas must not be negative, got %d", name, *p.MaxReplicas))
		case p.Weight < 0:
			errs = append(errs, at.errorf("clusters.%s.weight must not be negative, got %d", name, p.Weight))
		}
	}
	return errors.Join(errs...)
}

// selectorRequirement is one term of the cluster-selector annotation.
type selectorRequirement struct {
	Key      string   `json:"key"`
	Operator string   `json:"operator"`
	Values   []string `json:"values"`
}

// selectorOperators map Federation v1's operator spellings onto a label
// selector's. Federation v1 also had gt/lt (Gt, >, Lt, <), which a
// Kubernetes label selector cannot express; they are errors here.
var selectorOperators = map[string]metav1.LabelSelectorOperator{
	"in": metav1.LabelSelectorOpIn, "In": metav1.LabelSelectorOpIn, "=": metav1.LabelSelectorOpIn, "==": metav1.LabelSelectorOpIn,
	"notin": metav1.LabelSelectorOpNotIn, "NotIn": metav1.LabelSelectorOpNotIn, "!=": metav1.LabelSelectorOpNotIn,
	"exists": metav1.LabelSelectorOpExists, "Exists": metav1.LabelSelectorOpExists,
	"!": metav1.LabelSelectorOpDoesNotExist, "DoesNotExist": metav1.LabelSelectorOpDoesNotExist,
}

// clusterSelector reads the cluster-selector annotation into a placement
// whose clusterSelector holds the same terms, so that placement and
// explain treat it as any selector.
func clusterSelector(v any, at annotation) (federation.Placement, error) {
	raw, ok := v.(string)
	if !ok {
		return federation.Placement{}, at.errorf(`must be a string holding a JSON list, e.g. '[{"key": "region", "operator": "in", "values": ["eu"]}]'`)
	}
	var reqs []selectorRequirement
	if err := json.Unmarshal([]byte(raw), &reqs); err != nil {
		return federation.Placement{}, at.errorf("is not a JSON list of {key, operator, values}: %v", err)
	}
	sel := &metav1.LabelSelector{}
	var errs []error
	for i, r := range reqs {
		op, known := selectorOperators[r.Operator]
		switch {
		case r.Key == "":
			errs = append(errs, at.errorf("term %d has no key", i))
		case !known && slices.Contains([]string{"gt", "Gt", ">", "lt", "Lt", "<"}, r.Operator):
			errs = append(errs, at.errorf("term %d: operator %q compares numbers, which a label selector cannot; select the members by In or NotIn on their labels", i, r.Operator))
		case !known:
			errs = append(errs, at.errorf("term %d: unknown operator %q; Federation v1's are in, notin, =, ==, !=, exists and !", i, r.Operator))
		case (op == metav1.LabelSelectorOpIn || op == metav1.LabelSelectorOpNotIn) && len(r.Values) == 0:
			errs = append(errs, at.errorf("term %d: operator %q needs values", i, r.Operator))
		default:
			values := r.Values
			if op == metav1.LabelSelectorOpExists || op == metav1.LabelSelectorOpDoesNotExist {
				values = nil
			}
			sel.MatchExpressions = append(sel.MatchExpressions, metav1.LabelSelectorRequirement{Key: r.Key, Operator: op, Values: values})
		}
	}
	if len(errs) > 0 {
		return federation.Placement{}, errors.Join(errs...)
	}
	return federation.Placement{ClusterSelector: sel}, nil
}

// placeByPolicy places a workload that a Karmada PropagationPolicy or
// ClusterPropagationPolicy of the input selects on the policy's members
// (intersected with the cluster-selector annotation's, when there is one):
// the plan considers those members only (RSPSpec.Considered), because
// KubeFed's planner plans over every member and its plan, zeros included,
// decides the placement; "*" is written out for each of them. Without a selecting policy, the workload stays on every
// member.
func placeByPolicy(in dialect.Input, policies *karmada.Policies, h dialect.Head, obj *federation.Object, rsp *federation.ReplicaSchedulingPreference) error {
	placed, ok := policies.Place(in, h.APIVersion, h.Kind, obj.Namespace, obj.Name, obj.Labels)
	if !ok {
		return nil
	}
	members := placed.Members
	if sel := obj.Spec.Placement.ClusterSelector; sel != nil && len(sel.MatchLabels)+len(sel.MatchExpressions) > 0 {
		chosen, err := placement.Select(obj.Spec.Placement, in.Members)
		if err != nil {
			return err
		}
		members = placement.Intersect(members, chosen.Clusters)
	}
	prefs := rsp.Spec.Clusters
	if len(prefs) == 0 {
		prefs = map[string]federation.ClusterPreferences{"*": {Weight: 1}}
	}
	limited := map[string]federation.ClusterPreferences{}
	for _, m := range members {
		if p, ok := prefs[m]; ok {
			limited[m] = p
		} else if p, ok := prefs["*"]; ok {
			limited[m] = p
		}
	}
	if len(limited) == 0 {
		// The annotation names none of the policy's members: each gets
		// nothing, as the planner gives a member without a preference,
		// not the even split an empty preference list means.
		for _, m := range members {
			limited[m] = federation.ClusterPreferences{}
		}
	}
	rsp.Spec.Clusters = limited
	// A policy that selects no member places the workload nowhere
	// (Karmada: no clusters available to schedule): an empty, not a
	// nil, list of members to consider.
	rsp.Spec.Considered = append([]string{}, members...)
	rsp.Spec.IntersectWithClusterSelector = false // the members already are the selector's
	obj.Spec.Placement = federation.Placement{Clusters: []federation.ClusterRef{}}
	for _, m := range members {
		obj.Spec.Placement.Clusters = append(obj.Spec.Placement.Clusters, federation.ClusterRef{Name: m})
	}
	obj.Notes = append(placed.Notes, fmt.Sprintf("placed by %s; the %s annotation divides the replicas over its members (the policy's replicaScheduling is not used)", placed.Policy, preferenceKey(h)))
	return nil
}
