package testutil

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fedctl/fedctl/pkg/manifest"
)

// Documents reads the files (or directories) at paths as -f does, for
// tests that run the pipeline, which takes documents, not paths.
func Documents(t testing.TB, paths ...string) []manifest.Document {
	t.Helper()
	docs, err := manifest.Read(paths, false, nil)
	require.NoError(t, err)
	return docs
}
