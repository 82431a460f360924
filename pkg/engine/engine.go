// Package engine runs fedctl's offline stages in order — read the manifests,
// decode the federated objects, then place, plan, override and render them
// for every member — and hands the result to whichever command asked: render
// prints it, apply pushes it. It reads files but never talks to a cluster.
package engine

import (
	"errors"
	"io"

	"github.com/fedctl/fedctl/pkg/federation"
	"github.com/fedctl/fedctl/pkg/manifest"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/placement"
	"github.com/fedctl/fedctl/pkg/render"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Input says what to read and for which federation.
type Input struct {
	Filenames        []string
	Recursive        bool
	Stdin            io.Reader
	DefaultNamespace string
	Federation       *members.Federation
	// Only limits the output to these members (--cluster); placement and
	// plans still consider every member.
	Only []string
}

// Output is the engine's result.
type Output struct {
	Set    *federation.Set
	Result *render.Result
}

// Run reads, decodes and renders. Reading and decoding problems are returned
// as the error; what did decode is rendered all the same, so that a caller
// can report every problem of the input in one run. Render problems are in
// Result.Errors, per object and member, so that a caller that pushes can
// proceed with the members that rendered.
func Run(in Input) (*Output, error) {
	if len(in.Filenames) == 0 {
		return nil, errors.New("no manifests given: use -f FILE, -f DIR or -f -")
	}
	for _, name := range in.Only {
		if _, ok := in.Federation.Member(name); !ok {
			return nil, &members.NotMemberError{Name: name, Members: in.Federation.Names()}
		}
	}
	docs, readErr := manifest.Read(in.Filenames, in.Recursive, in.Stdin)
	reg, err := typeconfig.NewRegistry(in.Federation.Types, in.Federation.DisabledTypes)
	if err != nil {
		return nil, err
	}
	set, decodeErr := federation.Decode(docs, reg, federation.DecodeOptions{DefaultNamespace: in.DefaultNamespace})
	clusters := make([]placement.Cluster, len(in.Federation.Clusters))
	for i, m := range in.Federation.Clusters {
		clusters[i] = placement.Cluster{Name: m.Name, Labels: m.Labels}
	}
	res := render.ForClusters(render.Input{Set: set, Types: reg, Members: clusters, Only: in.Only})
	res.Warnings = append(set.Warnings, res.Warnings...)
	return &Output{Set: set, Result: res}, errors.Join(readErr, decodeErr)
}
