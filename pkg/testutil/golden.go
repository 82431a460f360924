package testutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// UpdateGoldenEnv, set to 1, makes AssertGolden rewrite the files instead of
// comparing ("make golden").
const UpdateGoldenEnv = "FEDCTL_UPDATE_GOLDEN"

// AssertGolden compares got with the file at path, or writes it when
// FEDCTL_UPDATE_GOLDEN=1. Golden diffs are reviewed like code.
func AssertGolden(t testing.TB, got []byte, path string) {
	t.Helper()
	if os.Getenv(UpdateGoldenEnv) == "1" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run \"make golden\" to create it")
	assert.Equal(t, string(want), string(got), "output differs from %s; if the change is intended, run \"make golden\" and review the diff", path)
}
