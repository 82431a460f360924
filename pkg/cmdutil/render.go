package cmdutil

import (
	"errors"

	"github.com/fedctl/fedctl/pkg/engine"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/render"
)

// MemberInput is what apply, diff and delete read: manifests (-f, -R, -n)
// and the members to work on (--cluster; none means every member).
type MemberInput struct {
	Federation func() (*members.File, error)
	Filenames  []string
	Recursive  bool
	Namespace  string
	Clusters   []string
}

// Rendered is MemberInput read and rendered.
type Rendered struct {
	Federation *members.Federation
	Result     *render.Result
	// Clusters are the members to work on.
	Clusters []string
}

// RenderForMembers loads the federation and runs the engine for a command
// that goes on to the members: warnings go to ios's stderr, and an input
// that does not read or decode, or a federated object that fails for every
// member, is an error, so nothing is sent. Failures for one member stay in
// the result, for that member's report.
func RenderForMembers(ios *iostreams.IOStreams, in MemberInput) (*Rendered, error) {
	file, err := in.Federation()
	if err != nil {
		return nil, err
	}
	fed := file.Federation
	out, err := engine.Run(engine.Input{
		Filenames:        in.Filenames,
		Recursive:        in.Recursive,
		Stdin:            ios.In,
		DefaultNamespace: in.Namespace,
		Federation:       fed,
		Only:             in.Clusters,
	})
	if out == nil {
		return nil, err
	}
	PrintWarnings(ios, out.Result.Warnings)
	if err := errors.Join(err, out.Result.InputErr()); err != nil {
		return nil, err
	}
	clusters := in.Clusters
	if len(clusters) == 0 {
		clusters = fed.Names()
	}
	return &Rendered{Federation: fed, Result: out.Result, Clusters: clusters}, nil
}
