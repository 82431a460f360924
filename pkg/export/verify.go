package export

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/printers"
	"github.com/fedctl/fedctl/pkg/render"
)

// Verify reads converted documents back as fedctl input, renders them for
// the same members (under the names the conversion gave them; nil names
// keeps fedctl's) and lists each member object that differs from want, but
// those a note already explains. An empty list means the other system,
// given the documents, makes exactly the member objects fedctl renders.
func Verify(docs []map[string]any, types federation.Types, members []placement.Cluster, names map[string]string, want *render.Result, notes []Note) ([]string, error) {
	explained := map[string]bool{}
	for _, n := range notes {
		for _, m := range n.Members {
			explained[m+" "+n.Object] = true
		}
	}
	var in []manifest.Document
	if !slices.ContainsFunc(docs, func(d map[string]any) bool { return d["apiVersion"] == karmadaPolicyAPIVersion }) && slices.ContainsFunc(docs, isNamespace) {
		// Namespaces placed everywhere need no policy, Karmada syncing
		// them by itself; fedctl's reader, though, tells Karmada input by
		// its policies. One that selects nothing says the files are
		// Karmada's and changes nothing else.
		docs = append(slices.Clone(docs), map[string]any{
			"apiVersion": karmadaPolicyAPIVersion, "kind": "ClusterPropagationPolicy",
			"metadata": map[string]any{"name": "fedctl-verify-reads-karmada"},
			"spec": map[string]any{
				"resourceSelectors": []any{map[string]any{"apiVersion": "v1", "kind": "Namespace", "labelSelector": map[string]any{"matchLabels": map[string]any{"fedctl.io/verify": "selects-nothing"}}}},
				"placement":         map[string]any{},
			},
		})
	}
	for i, d := range docs {
		data, err := printers.EncodeYAML(d)
		if err != nil {
			return nil, err
		}
		in = append(in, manifest.Document{File: "(converted)", Line: i + 1, Data: data})
	}
	renamed := members
	original := map[string]string{}
	if names != nil {
		renamed = make([]placement.Cluster, len(members))
		for i, m := range members {
			renamed[i] = m
			renamed[i].Name = names[m.Name]
			original[names[m.Name]] = m.Name
		}
	}
	set, err := pipeline.Decode(in, types, "default", renamed)
	if err != nil {
		return nil, err
	}
	back := render.ForClusters(render.Input{Set: set, Types: types, Members: renamed})
	if err := back.Err(); err != nil {
		return nil, err
	}
	key := func(cluster string, t render.Target) string {
		return fmt.Sprintf("cluster %s: %s %s", cluster, strings.ToLower(t.Type.Kind), strings.TrimPrefix(t.Namespace()+"/"+t.Name(), "/"))
	}
	wanted, got := map[string]render.Target{}, map[string]render.Target{}
	for _, t := range want.Targets {
		wanted[key(t.Cluster, t)] = t
	}
	for _, t := range back.Targets {
		cluster := t.Cluster
		if o, ok := original[cluster]; ok {
			cluster = o
		}
		got[key(cluster, t)] = t
	}
	var out []string
	for k, w := range wanted {
		if explained[w.Cluster+" "+w.Source.ID()] {
			continue
		}
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, k+": the converted input creates no object there")
		case !reflect.DeepEqual(w.Object, g.Object):
			out = append(out, k+": the converted input creates a different object")
		}
	}
	for k := range got {
		if _, ok := wanted[k]; !ok {
			out = append(out, k+": the converted input creates an object fedctl does not render from the input")
		}
	}
	slices.Sort(out)
	return out, nil
}

func isNamespace(d map[string]any) bool { return d["apiVersion"] == "v1" && d["kind"] == "Namespace" }
