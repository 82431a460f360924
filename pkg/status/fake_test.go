package status

import (
	"errors"

	"github.com/fedctl/fedctl/pkg/members/memberstest"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// newFakeMember is a member in memory that moves generations as an API
// server does, enough for propagate.Run to apply to it and for Read to read
// it back.
func newFakeMember(types ...typeconfig.Type) *memberstest.Fake {
	f := memberstest.New(types...)
	f.Generations = true
	return f
}

var errRefused = errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
