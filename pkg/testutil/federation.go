package testutil

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/members"
	"github.com/fedctl/fedctl/pkg/typeconfig"
)

// Registry is fed's type registry, for tests that run the pipeline on a
// federation as cmdutil.Render does.
func Registry(t testing.TB, fed *members.Federation) *typeconfig.Registry {
	t.Helper()
	reg, err := fed.Registry()
	require.NoError(t, err)
	return reg
}
