package export

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/render"
)

// ToKubeFed writes the federated objects of another input dialect (Karmada,
// Federation v1) as KubeFed's: each Federated<Kind> as the model holds it,
// and the ReplicaSchedulingPreferences. Where the dialect renders by a
// rule KubeFed does not have, the output says it KubeFed's way (template
// annotations become per-member overrides) or a Note says what differs.
func ToKubeFed(set *federation.Set, res *render.Result) ([]map[string]any, []Note, error) {
	placed := map[*federation.Object][]string{}
	for _, p := range res.Placed {
		placed[p.Object] = p.Clusters
	}
	namespaces := set.Namespaces()
	var out []map[string]any
	var notes []Note
	for _, src := range set.Objects {
		o := *src
		where := fmt.Sprintf("%s:%d", o.Pos.File(), o.Pos.Line(""))
		note := func(members []string, format string, args ...any) {
			notes = append(notes, Note{Where: where, Object: o.ID(), Message: fmt.Sprintf(format, args...), Members: members})
		}
		o.Spec = cloneSpec(src.Spec)
		members := placed[src]
		if len(src.MemberErrors) > 0 {
			failed := slices.Sorted(maps.Keys(src.MemberErrors))
			note(failed, "not placed in %v: its overrides fail there (%v)", failed, src.MemberErrors[failed[0]])
			o.Spec.Placement.Clusters = slices.DeleteFunc(o.Spec.Placement.Clusters, func(c federation.ClusterRef) bool { return src.MemberErrors[c.Name] != nil })
		}
		if src.Rules.NamespaceOptional && o.Namespace != "" && !o.IsNamespace() {
			if _, ok := namespaces[o.Namespace]; !ok {
				note(members, "namespace %s is not in the input: KubeFed places the object nowhere without its FederatedNamespace (add a Namespace to the input)", o.Namespace)
			}
		}
		if src.Rules.KeepAnnotations {
			keepAnnotations(&o, members)
		}
		data, err := json.Marshal(&o)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %s: %w", where, o.ID(), err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, nil, err
		}
		out = append(out, m)
	}
	for _, rsp := range set.RSPs {
		if rsp.Spec.Considered != nil {
			notes = append(notes, Note{Where: fmt.Sprintf("%s:%d", rsp.Pos.File(), rsp.Pos.Line("")), Object: rsp.ID(),
				Message: fmt.Sprintf("a Karmada policy limits the plan to %v; KubeFed's ReplicaSchedulingPreference plans over every member, so the others get a 0-replica object", rsp.Spec.Considered)})
		}
		data, err := json.Marshal(rsp)
		if err != nil {
			return nil, nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, nil, err
		}
		delete(m, "status")
		out = append(out, m)
	}
	return out, notes, nil
}

// keepAnnotations moves the template's annotations, which the dialect sends
// to members and KubeFed drops, into an override for each member, first,
// so that later operations on them apply as before.
func keepAnnotations(o *federation.Object, members []string) {
	meta, _ := o.Spec.Template["metadata"].(map[string]any)
	annotations, ok := meta["annotations"].(map[string]any)
	if !ok || len(annotations) == 0 {
		return
	}
	tmpl := maps.Clone(o.Spec.Template)
	meta = maps.Clone(meta)
	delete(meta, "annotations")
	tmpl["metadata"] = meta
	if len(meta) == 0 {
		delete(tmpl, "metadata")
	}
	o.Spec.Template = tmpl
	value, _ := json.Marshal(annotations)
	add := federation.Override{Op: "add", Path: "/metadata/annotations", Value: value}
	for _, m := range members {
		i := slices.IndexFunc(o.Spec.Overrides, func(c federation.ClusterOverrides) bool { return c.ClusterName == m })
		if i < 0 {
			o.Spec.Overrides = append(o.Spec.Overrides, federation.ClusterOverrides{ClusterName: m})
			i = len(o.Spec.Overrides) - 1
		}
		o.Spec.Overrides[i].ClusterOverrides = append([]federation.Override{add}, o.Spec.Overrides[i].ClusterOverrides...)
	}
}

func cloneSpec(s federation.ObjectSpec) federation.ObjectSpec {
	s.Placement.Clusters = slices.Clone(s.Placement.Clusters)
	s.Overrides = slices.Clone(s.Overrides)
	for i := range s.Overrides {
		s.Overrides[i].ClusterOverrides = slices.Clone(s.Overrides[i].ClusterOverrides)
	}
	return s
}
