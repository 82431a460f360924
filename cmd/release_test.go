package cmd

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestGoreleaserConfig checks what a release must contain, so that a broken
// .goreleaser.yaml shows up in "make test" rather than on release day. (The
// goreleaser binary itself is not available from the module proxy here.)
func TestGoreleaserConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", ".goreleaser.yaml"))
	require.NoError(t, err)
	var cfg struct {
		Version int `json:"version"`
		Builds  []struct {
			ID      string   `json:"id"`
			Binary  string   `json:"binary"`
			Main    string   `json:"main"`
			Goos    []string `json:"goos"`
			Goarch  []string `json:"goarch"`
			Ldflags []string `json:"ldflags"`
			Env     []string `json:"env"`
			Flags   []string `json:"flags"`
		} `json:"builds"`
		Archives []struct {
			IDs   []string `json:"ids"`
			Files []string `json:"files"`
		} `json:"archives"`
	}
	require.NoError(t, yaml.Unmarshal(data, &cfg))
	assert.Equal(t, 2, cfg.Version)

	var binaries []string
	for _, b := range cfg.Builds {
		binaries = append(binaries, b.Binary)
		assert.Equal(t, ".", b.Main, b.ID)
		assert.ElementsMatch(t, []string{"linux", "darwin", "windows"}, b.Goos, b.ID)
		assert.ElementsMatch(t, []string{"amd64", "arm64"}, b.Goarch, b.ID)
		assert.Contains(t, b.Env, "CGO_ENABLED=0", b.ID)
		assert.Contains(t, b.Flags, "-tags=kustomize_disable_go_plugin_support", "%s: kustomize's Go plugin loader is left out", b.ID)
		ldflags := strings.Join(b.Ldflags, " ")
		// The variables the linker sets must exist in this package.
		for _, v := range []string{"cmd.version=", "cmd.commit=", "cmd.date="} {
			assert.Contains(t, ldflags, "github.com/fedctl/fedctl/"+v, b.ID)
		}
	}
	assert.ElementsMatch(t, []string{"fedctl", "kubectl-fed"}, binaries)
	_ = version + commit + date // referenced so a rename breaks this test

	require.Len(t, cfg.Archives, 1)
	assert.ElementsMatch(t, []string{"fedctl", "kubectl-fed"}, cfg.Archives[0].IDs)
	assert.True(t, slices.Contains(cfg.Archives[0].Files, "completions/*"), "archives ship the completions")
	assert.True(t, slices.Contains(cfg.Archives[0].Files, "LICENSE"), "archives ship the licence")
	_, err = os.Stat(filepath.Join("..", "LICENSE"))
	require.NoError(t, err, "the licence is in the repository")
	matches, err := filepath.Glob(filepath.Join("..", "completions", "*"))
	require.NoError(t, err)
	assert.Len(t, matches, 4, "completions for bash, zsh, fish and powershell")
}
