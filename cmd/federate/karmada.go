package federate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/render"
)

// ExitApproximated is the exit code when the converted output makes
// Karmada produce something other than what fedctl renders somewhere.
const ExitApproximated = 3

// runToKarmada converts the input, whatever its dialect, into Karmada's
// plain manifests and policies, then reads the output back as Karmada
// input and renders it: every member object that differs from what the
// input renders is reported, and the exit code is 3.
func (o *FederateOptions) runToKarmada() error {
	r, err := cmdutil.Render(o.IO, cmdutil.RenderInput{
		Federation: o.Federation, Filenames: o.Filenames, Recursive: o.Recursive, Failing: cmdutil.FailOnAny,
	})
	if err != nil {
		return err
	}
	conv, err := export.ToKarmada(export.Input{Set: r.Set, Result: r.Result, Members: r.Members})
	if err != nil {
		return err
	}
	notes := conv.Notes
	explained := map[string]bool{}
	for _, n := range notes {
		for _, m := range n.Members {
			explained[m+" "+n.Object] = true
		}
	}
	mismatches, err := verify(conv.Documents, r, explained)
	if err != nil {
		return fmt.Errorf("internal error: the converted output does not read back as Karmada input: %w", err)
	}
	if err := o.print(conv.Documents); err != nil {
		return err
	}
	cs := o.IO.ErrColorScheme()
	approximated := len(mismatches)
	for _, n := range notes {
		if n.Exact {
			fmt.Fprintf(o.IO.ErrOut, "note: %s\n", n)
			continue
		}
		approximated++
		fmt.Fprintf(o.IO.ErrOut, "%s %s\n", cs.WarningIcon(), n)
	}
	for _, m := range mismatches {
		fmt.Fprintf(o.IO.ErrOut, "%s %s\n", cs.WarningIcon(), m)
	}
	if approximated > 0 {
		return &cmdutil.ExitError{Code: ExitApproximated, Err: fmt.Errorf("%d construct(s) could not be converted exactly; Karmada would differ as listed above", approximated)}
	}
	return nil
}

// verify renders docs as Karmada input for the same members and lists each
// member object that differs from what r rendered, but those a note
// explains already ("member federated-object ID").
func verify(docs []map[string]any, r *cmdutil.Rendered, explained map[string]bool) ([]string, error) {
	var in []manifest.Document
	for i, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		in = append(in, manifest.Document{File: "(converted)", Line: i + 1, Data: data})
	}
	set, err := pipeline.Decode(in, r.Types, "default", r.Members)
	if err != nil {
		return nil, err
	}
	back := render.ForClusters(render.Input{Set: set, Types: r.Types, Members: r.Members})
	if err := back.Err(); err != nil {
		return nil, err
	}
	key := func(t render.Target) string {
		return fmt.Sprintf("cluster %s: %s %s", t.Cluster, strings.ToLower(t.Type.Kind), strings.TrimPrefix(t.Namespace()+"/"+t.Name(), "/"))
	}
	want, got := map[string]render.Target{}, map[string]render.Target{}
	for _, t := range r.Result.Targets {
		want[key(t)] = t
	}
	for _, t := range back.Targets {
		got[key(t)] = t
	}
	var out []string
	for k, w := range want {
		if explained[w.Cluster+" "+w.Source.ID()] {
			continue
		}
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, k+": Karmada would create no object there")
		case !reflect.DeepEqual(w.Object, g.Object):
			out = append(out, k+": Karmada would create a different object")
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, k+": Karmada would create an object fedctl does not render")
		}
	}
	slices.Sort(out)
	return out, nil
}
