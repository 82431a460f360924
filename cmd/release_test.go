package cmd

import (
	"os"
	"os/exec"
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
	assert.True(t, slices.Contains(cfg.Archives[0].Files, "kubectl_complete-fed"), "archives ship kubectl's plugin completion beside kubectl-fed")
	_, err = os.Stat(filepath.Join("..", "LICENSE"))
	require.NoError(t, err, "the licence is in the repository")
	matches, err := filepath.Glob(filepath.Join("..", "completions", "*"))
	require.NoError(t, err)
	assert.Len(t, matches, 4, "completions for bash, zsh, fish and powershell")
}

// TestKubectlCompleteFed: "kubectl fed <TAB>" runs kubectl_complete-fed
// from PATH (kubectl 1.26+) with the words after "fed"; the script hands
// them to "fedctl __complete" unchanged. Checked with a stand-in fedctl that
// prints its arguments.
func TestKubectlCompleteFed(t *testing.T) {
	script, err := filepath.Abs(filepath.Join("..", "kubectl_complete-fed"))
	require.NoError(t, err)
	st, err := os.Stat(script)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode().Perm()&0o111, "kubectl runs it: it must be executable")

	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "fedctl"), []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n"), 0o755))
	cmd := exec.Command(script, "get", "deployments", "-n", "")
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "[__complete]\n[get]\n[deployments]\n[-n]\n[]\n", string(out), "the words, the empty one being completed included")
}

// TestMakeInstall: "make install" puts fedctl, kubectl-fed and
// kubectl_complete-fed in GOBIN.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds fedctl")
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	gobin := t.TempDir()
	cmd := exec.Command("make", "-C", "..", "install")
	cmd.Env = append(os.Environ(), "GOBIN="+gobin)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	for _, name := range []string{"fedctl", "kubectl-fed", "kubectl_complete-fed"} {
		st, err := os.Stat(filepath.Join(gobin, name))
		require.NoError(t, err, "%s is installed", name)
		assert.NotZero(t, st.Mode().Perm()&0o111, "%s is executable", name)
	}
	link, err := os.Readlink(filepath.Join(gobin, "kubectl-fed"))
	require.NoError(t, err)
	assert.Equal(t, "fedctl", link)
}
