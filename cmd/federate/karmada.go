package federate

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/fedctl/fedctl/pkg/cmdutil"
	"github.com/fedctl/fedctl/pkg/export"
	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/pipeline"
	"github.com/fedctl/fedctl/pkg/placement"
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
	mismatches, err := verify(conv.Documents, r.Types, r.Members, r.Result, explained)
	if err != nil {
		return fmt.Errorf("internal error: the converted output does not read back as Karmada input: %w", err)
	}
	if err := o.print(conv.Documents); err != nil {
		return err
	}
	return o.report(notes, mismatches)
}

// report prints the conversion's notes and mismatches on stderr and
// returns exit code 3 when anything is not exact.
func (o *FederateOptions) report(notes []export.Note, mismatches []string) error {
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

// verify renders converted docs as input for the same members and lists
// each member object that differs from what was rendered before
// conversion (want), but those a note explains already ("member
// federated-object ID").
func verify(docs []map[string]any, types federation.Types, members []placement.Cluster, rendered *render.Result, explained map[string]bool) ([]string, error) {
	var in []manifest.Document
	for i, d := range docs {
		data, err := yaml.Marshal(d)
		if err != nil {
			return nil, err
		}
		in = append(in, manifest.Document{File: "(converted)", Line: i + 1, Data: data})
	}
	set, err := pipeline.Decode(in, types, "default", members)
	if err != nil {
		return nil, err
	}
	back := render.ForClusters(render.Input{Set: set, Types: types, Members: members})
	if err := back.Err(); err != nil {
		return nil, err
	}
	key := func(t render.Target) string {
		return fmt.Sprintf("cluster %s: %s %s", t.Cluster, strings.ToLower(t.Type.Kind), strings.TrimPrefix(t.Namespace()+"/"+t.Name(), "/"))
	}
	want, got := map[string]render.Target{}, map[string]render.Target{}
	for _, t := range rendered.Targets {
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
			out = append(out, k+": the converted input creates no object there")
		case !reflect.DeepEqual(w.Object, g.Object):
			out = append(out, k+": the converted input creates a different object")
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			out = append(out, k+": the converted input creates an object fedctl does not render from the input")
		}
	}
	slices.Sort(out)
	return out, nil
}
