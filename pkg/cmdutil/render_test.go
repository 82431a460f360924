package cmdutil

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/iostreams"
	"github.com/fedctl/fedctl/pkg/members"
)

// TestRenderAgainFromDocs: a second render for another federation (drain's
// and migrate's "after") takes the documents the first one read, so that
// -f - (stdin, which cannot be read twice) renders the same input twice.
func TestRenderAgainFromDocs(t *testing.T) {
	fed := members.New()
	for _, name := range []string{"a", "b"} {
		require.NoError(t, fed.Put(members.Member{Name: name}, false))
	}
	file := func() (*members.File, error) { return &members.File{Federation: fed}, nil }
	ios, stdin, _, _ := iostreams.Test()
	stdin.WriteString(`apiVersion: types.kubefed.io/v1beta1
kind: FederatedNamespace
metadata: {name: shop, namespace: shop}
spec: {placement: {clusterSelector: {}}}
`)
	in := RenderInput{Federation: file, Filenames: []string{"-"}, Namespace: "default"}
	first, err := Render(ios, in)
	require.NoError(t, err)
	require.Len(t, first.Docs, 1)
	assert.Zero(t, stdin.Len(), "stdin was read")

	in.Docs = first.Docs
	second, err := Render(ios, in)
	require.NoError(t, err, "stdin is not read again")
	assert.Len(t, second.Result.Targets, len(first.Result.Targets))
	assert.Len(t, second.Result.Targets, 2)
}
