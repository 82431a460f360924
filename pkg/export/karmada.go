package export

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
)

// Karmada's policy API (karmada-io/karmada, pkg/apis/policy/v1alpha1).
const (
	karmadaPolicyAPIVersion  = "policy.karmada.io/v1alpha1"
	skipAutoPropagationLabel = "namespace.karmada.io/skip-auto-propagation"
	// retainReplicasLabel on a template keeps each member's spec.replicas
	// (pkg/resourceinterpreter/default/native/retain.go).
	retainReplicasLabel = "resourcetemplate.karmada.io/retain-replicas"
)

// Input is what ToKarmada converts: the federated objects and what fedctl
// renders for them, with the members they were rendered for.
type Input struct {
	Set     *federation.Set
	Result  *render.Result
	Members []placement.Cluster
}

// Note is a construct Karmada cannot express as fedctl renders it, and
// what the conversion does instead.
type Note struct {
	// Where is the input's "file:line" the note is about, or FederationFile.
	Where   string `json:"where"`
	Object  string `json:"object"`
	Message string `json:"message"`
	// Members are the members whose object the note explains, when it is
	// about some members only.
	Members []string `json:"members,omitempty"`
	// Exact says the note only informs: Karmada creates the same member
	// objects all the same (an object placed nowhere is left out).
	Exact bool `json:"exact"`
}

// FederationFile is the Where of a note about the federation file (its
// members, namespace or rollout): the caller, which knows the file's path,
// may put that in its place.
const FederationFile = "federation file"

func (n Note) String() string { return fmt.Sprintf("%s: %s: %s", n.Where, n.Object, n.Message) }

// Karmada is the converted input: per federated object, its plain
// manifest, then its propagation policy, then its override policy.
type Karmada struct {
	Documents []map[string]any
	Notes     []Note
	// ClusterNames maps each member to its Karmada Cluster name: the same
	// name unless Karmada refuses it (see KarmadaClusterNames).
	ClusterNames map[string]string
}

// resourceSpread are the kinds whose spec.replicas Karmada divides and
// revises per member (pkg/resourceinterpreter/default/native).
var resourceSpread = []string{"Deployment", "ReplicaSet", "StatefulSet"}

// ToKarmada converts every placed federated object of in into a plain
// manifest plus the Karmada policies that place, divide and override it
// as fedctl renders it for in.Members. A render error, a member name
// Karmada refuses or an object in a namespace Karmada never propagates is
// an error: the conversion would silently differ.
func ToKarmada(in Input) (*Karmada, error) {
	var errs []error
	names, renamed, err := KarmadaClusterNames(in.Members)
	if err != nil {
		errs = append(errs, err)
	}
	if err := in.Result.Err(); err != nil {
		errs = append(errs, fmt.Errorf("the input does not render cleanly; fix it first: %w", err))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	all := make([]string, len(in.Members))
	for i, m := range in.Members {
		all[i] = names[m.Name]
	}
	slices.Sort(all)
	targets := map[*federation.Object]map[string]map[string]any{}
	for _, t := range in.Result.Targets {
		if targets[t.Source] == nil {
			targets[t.Source] = map[string]map[string]any{}
		}
		targets[t.Source][names[t.Cluster]] = Unmarked(t.Object)
	}
	out := &Karmada{Notes: renamed, ClusterNames: names}
	rsps := in.Set.Planned() // by object ID
	namespaces := in.Set.Namespaces()
	for _, p := range in.Result.Placed {
		o := p.Object
		where := fmt.Sprintf("%s:%d", o.Pos.File(), o.Pos.Line(""))
		note := func(members []string, format string, args ...any) {
			out.Notes = append(out.Notes, Note{Where: where, Object: o.ID(), Message: fmt.Sprintf(format, args...), Members: members})
		}
		info := func(format string, args ...any) {
			out.Notes = append(out.Notes, Note{Where: where, Object: o.ID(), Message: fmt.Sprintf(format, args...), Exact: true})
		}
		if o.Rules.PlacementOnly {
			// A namespace-scoped federation's FederatedNamespace only
			// limits placement: fedctl never creates or deletes the
			// namespace. Karmada needs it to hold the templates, and is
			// told not to sync it to any member.
			if o.IsNamespace() {
				out.Documents = append(out.Documents, map[string]any{"apiVersion": "v1", "kind": "Namespace",
					"metadata": map[string]any{"name": o.Name, "labels": map[string]any{skipAutoPropagationLabel: "true"}}})
				info("namespace %s holds the templates in Karmada and is not synced to members (labelled %s): the namespace-scoped federation neither creates nor deletes it", o.Name, skipAutoPropagationLabel)
			}
			continue
		}
		if o.IsNamespace() && render.SystemNamespace(o.Name) {
			info("not converted: KubeFed never propagates namespace %s as an object, and Karmada does not sync it", o.Name)
			continue
		}
		if p.Type.Namespaced() && strings.HasPrefix(o.Namespace, "kube-") {
			errs = append(errs, fmt.Errorf("%s: %s: Karmada never propagates objects in %s", where, o.ID(), o.Namespace))
			continue
		}
		if len(p.Clusters) == 0 {
			// A Karmada policy that matches no member fails to schedule,
			// and a template without a policy goes nowhere: leaving the
			// object out is what places it nowhere.
			info("not converted: placed in no member")
			continue
		}
		if rsp := rsps[o.ID()]; rsp != nil {
			out.Notes = append(out.Notes, schedulingNotes(rsp, o)...)
		}
		docs, err := convertOne(o, p, targets[o], all, everyMember(namespaces, o, p.Type.Namespaced()), names, note)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %s: %w", where, o.ID(), err))
			continue
		}
		out.Documents = append(out.Documents, docs...)
	}
	out.Notes = append(out.Notes, DNSNotes(in.Set, "Karmada")...)
	if ns := in.Result.Namespace; ns != "" && !slices.ContainsFunc(out.Documents, func(d map[string]any) bool {
		return d["kind"] == "Namespace" && nested(d, "metadata", "name") == ns
	}) {
		out.Documents = append([]map[string]any{{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns, "labels": map[string]any{skipAutoPropagationLabel: "true"}}}}, out.Documents...)
		out.Notes = append(out.Notes, Note{Where: FederationFile, Object: "namespace " + ns, Exact: true,
			Message: fmt.Sprintf("holds the templates in Karmada and is not synced to members (labelled %s): the namespace-scoped federation neither creates nor deletes it", skipAutoPropagationLabel)})
	}
	return out, errors.Join(errs...)
}

// everyMember says o goes to every member by a clusterSelector that
// selects all ({}), and so does its FederatedNamespace when it has one: in
// KubeFed it then goes to members that join later too, as Karmada's empty
// affinity sends it to every cluster. A placement that names today's
// members keeps naming them (clusterNames), so that a cluster the Karmada
// control plane has besides them gets nothing.
func everyMember(namespaces map[string]*federation.Object, o *federation.Object, namespaced bool) bool {
	selectsAll := func(p federation.Placement) bool {
		sel := p.ClusterSelector
		return p.Clusters == nil && sel != nil && len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0
	}
	if !selectsAll(o.Spec.Placement) {
		return false
	}
	if ns := namespaces[o.Namespace]; namespaced && ns != nil && !selectsAll(ns.Spec.Placement) {
		return false
	}
	return true
}

func convertOne(o *federation.Object, p render.Placed, targets map[string]map[string]any, all []string, everywhere bool, names map[string]string, note func([]string, string, ...any)) ([]map[string]any, error) {
	t := p.Type
	plain := runtime.DeepCopyJSON(render.BaseObject(o, t))
	members := make([]string, len(p.Clusters))
	member := map[string]string{} // Karmada's name → fedctl's
	for i, c := range p.Clusters {
		members[i] = names[c]
		member[names[c]] = c
	}
	slices.Sort(members)
	isNamespace := o.IsNamespace()
	name := policyName(t.Kind, o.Name)

	// Replicas: equal everywhere is Duplicated; otherwise static weights
	// equal to each member's count, which Webster divides back exactly
	// (every quota is a whole number).
	replicas := map[string]int64{}
	divided := false
	// A member whose object sets no spec.replicas (the API's default
	// applies) has no count to weigh: the template is then propagated as
	// it is and each member's count is its override, exactly.
	unset := slices.ContainsFunc(members, func(m string) bool {
		target, rendered := targets[m]
		_, ok := nested(target, "spec", "replicas").(int64)
		return rendered && !ok
	})
	if slices.Contains(resourceSpread, t.Kind) && len(members) > 0 && !unset {
		var total int64
		for _, m := range members {
			r, _ := nested(targets[m], "spec", "replicas").(int64)
			replicas[m] = r
			total += r
		}
		tmpl, _ := nested(plain, "spec", "replicas").(int64)
		for _, m := range members {
			if replicas[m] != tmpl {
				divided = true
			}
		}
		if divided && total > 0 {
			plain["spec"].(map[string]any)["replicas"] = total
			for _, m := range members {
				if replicas[m] == 0 {
					note([]string{member[m]}, "member %s is planned 0 replicas: Karmada removes members divided 0, so it gets no object there (KubeFed keeps a 0-replica object)", member[m])
				}
			}
		} else {
			divided = false
		}
	}

	placementSpec := map[string]any{}
	switch {
	case slices.Equal(members, all) && !divided && everywhere:
		// every member by {}: Karmada's empty affinity selects every
		// cluster, those that join later included
	default:
		placementSpec["clusterAffinity"] = map[string]any{"clusterNames": toAny(members)}
	}
	if divided {
		var weights []any
		for _, m := range members {
			if replicas[m] > 0 {
				weights = append(weights, map[string]any{"targetCluster": map[string]any{"clusterNames": []any{m}}, "weight": replicas[m]})
			}
		}
		placementSpec["replicaScheduling"] = map[string]any{
			"replicaSchedulingType":     "Divided",
			"replicaDivisionPreference": "Weighted",
			"weightPreference":          map[string]any{"staticWeightList": weights},
		}
	}

	var docs []map[string]any
	selector := map[string]any{"apiVersion": t.APIVersion(), "kind": t.Kind, "name": o.Name}
	retain := o.Spec.RetainReplicas != nil && *o.Spec.RetainReplicas
	if retain {
		// Karmada keeps a member's spec.replicas only when the template
		// carries this label, which the member objects then carry too.
		setLabel(plain, retainReplicasLabel, "true")
		note(slices.Clone(p.Clusters), "retainReplicas becomes the template label %s, which Karmada also puts on the member objects", retainReplicasLabel)
	}
	// Karmada's namespace sync sends a Namespace to every cluster of the
	// control plane: right for one placed in every member by {}, not for
	// one that names today's members.
	synced := slices.Equal(members, all) && everywhere
	if isNamespace {
		// Karmada syncs every Namespace to every member; one placed on
		// some members opts out of the sync with a label, is placed by a
		// ClusterPropagationPolicy, and has the label removed there again
		// (by the override rules below: the members' copies lack it).
		if !synced {
			setLabel(plain, skipAutoPropagationLabel, "true")
		}
	}
	docs = append(docs, plain)
	needsPolicy := !isNamespace || !synced
	if needsPolicy {
		kind := "PropagationPolicy"
		if !t.Namespaced() {
			kind = "ClusterPropagationPolicy"
		}
		spec := map[string]any{
			"resourceSelectors":  []any{selector},
			"placement":          placementSpec,
			"conflictResolution": "Overwrite",
		}
		if o.Annotations[federation.OrphanAnnotation] == "true" {
			// Karmada v1.12+: the member objects stay when the template
			// is deleted. KubeFed's orphan also keeps those of a member
			// that leaves the placement, which Karmada deletes.
			spec["preserveResourcesOnDeletion"] = true
			note(nil, "%s: \"true\" becomes preserveResourcesOnDeletion, which keeps the member objects when the template is deleted but not when a member leaves the placement", federation.OrphanAnnotation)
		}
		docs = append(docs, policy(kind, name, o, t.Namespaced(), spec))
	}

	// Overrides: per member, the operations that turn what Karmada makes
	// before overrides (the template, its replicas revised) into what
	// fedctl renders there.
	var rules []any
	for _, m := range members {
		before := plain
		if divided {
			// the template with this member's replicas; only spec is new
			before = maps.Clone(plain)
			spec := maps.Clone(plain["spec"].(map[string]any))
			spec["replicas"] = replicas[m]
			before["spec"] = spec
		}
		target, ok := targets[m]
		if !ok {
			continue // rendered for no member here (--cluster); nothing to compare
		}
		if retain {
			// the label stays on the member objects: Karmada retains
			// by it after the overrides, which must not remove it
			target = runtime.DeepCopyJSON(target)
			setLabel(target, retainReplicasLabel, "true")
		}
		var ops []any
		diff("", before, target, &ops)
		if len(ops) == 0 {
			continue
		}
		rules = append(rules, map[string]any{
			"targetCluster": map[string]any{"clusterNames": []any{m}},
			"overriders":    map[string]any{"plaintext": ops},
		})
	}
	if len(rules) > 0 {
		kind := "OverridePolicy"
		if !t.Namespaced() || isNamespace {
			kind = "ClusterOverridePolicy"
		}
		docs = append(docs, policy(kind, name, o, t.Namespaced() && !isNamespace, map[string]any{
			"resourceSelectors": []any{selector},
			"overrideRules":     rules,
		}))
	}
	return docs, nil
}

func setLabel(obj map[string]any, key, value string) {
	meta, _ := obj["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		obj["metadata"] = meta
	}
	labels, _ := meta["labels"].(map[string]any)
	if labels == nil {
		labels = map[string]any{}
		meta["labels"] = labels
	}
	labels[key] = value
}

// policyName names an object's policies: its kind and name, so that
// objects of two kinds with one name get two policies.
func policyName(kind, name string) string {
	return strings.ToLower(kind) + "-" + name
}

func policy(kind, name string, o *federation.Object, namespaced bool, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if namespaced {
		meta["namespace"] = o.Namespace
	}
	return map[string]any{"apiVersion": karmadaPolicyAPIVersion, "kind": kind, "metadata": meta, "spec": spec}
}

// Unmarked is a rendered member object without the markers fedctl adds: the
// object another owner (Karmada, Argo CD) applies, which adds its own. It
// is a new object whose metadata, labels and annotations are copies; the
// rest is shared with obj, so neither must be changed below those (at
// thousands of objects a deep copy of each doubled the memory convert
// takes).
func Unmarked(obj map[string]any) map[string]any {
	out := maps.Clone(obj)
	meta, ok := out["metadata"].(map[string]any)
	if !ok {
		return out
	}
	meta = maps.Clone(meta)
	out["metadata"] = meta
	if labels, ok := meta["labels"].(map[string]any); ok {
		labels = maps.Clone(labels)
		meta["labels"] = labels
		delete(labels, federation.ManagedLabel)
		if labels[federation.ManagedByLabel] == federation.ManagedByValue {
			delete(labels, federation.ManagedByLabel)
		}
		if len(labels) == 0 {
			delete(meta, "labels")
		}
	}
	if annotations, ok := meta["annotations"].(map[string]any); ok {
		annotations = maps.Clone(annotations)
		meta["annotations"] = annotations
		delete(annotations, federation.SourceAnnotation)
		if len(annotations) == 0 {
			delete(meta, "annotations")
		}
	}
	return out
}

// diff appends the RFC 6902 operations that turn a into b, in the strict
// form Karmada's json-patch v5 accepts: add only under a parent that
// exists, replace and remove only of what is there. Maps are compared
// key by key and lists of one length item by item; a list whose length
// changed is replaced whole.
func diff(path string, a, b any, ops *[]any) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range slices.Sorted(maps.Keys(am)) {
			p := path + "/" + escape(k)
			if bv, ok := bm[k]; ok {
				diff(p, am[k], bv, ops)
			} else {
				*ops = append(*ops, map[string]any{"path": p, "operator": "remove"})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(bm)) {
			if _, ok := am[k]; !ok {
				*ops = append(*ops, map[string]any{"path": path + "/" + escape(k), "operator": "add", "value": bm[k]})
			}
		}
		return
	}
	al, aok := a.([]any)
	bl, bok := b.([]any)
	if aok && bok && len(al) == len(bl) {
		for i := range al {
			diff(fmt.Sprintf("%s/%d", path, i), al[i], bl[i], ops)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*ops = append(*ops, map[string]any{"path": path, "operator": "replace", "value": b})
	}
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func nested(obj map[string]any, keys ...string) any {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}
