package cmdutil

import (
	"errors"

	"github.com/fedctl/fedctl/pkg/engine"
	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/render"
)

// RenderForMembers runs the engine for a command that goes on to the
// members (apply, diff, delete): warnings go to ios's stderr, and an input
// that does not read or decode, or a federated object that fails for every
// member, is an error, so nothing is sent. Failures for one member stay in
// the result, for that member's report.
func RenderForMembers(ios *iostreams.IOStreams, in engine.Input) (*render.Result, error) {
	out, err := engine.Run(in)
	if out == nil {
		return nil, err
	}
	PrintWarnings(ios, out.Result.Warnings)
	if err := errors.Join(err, out.Result.InputErr()); err != nil {
		return nil, err
	}
	return out.Result, nil
}
