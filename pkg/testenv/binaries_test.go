package testenv

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStagingReplaces(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		goMod   string
		want    []string
		wantErr string
	}{
		{
			name: "block form as in k8s.io/kubernetes keeps only ./staging targets, sorted",
			goMod: `module k8s.io/kubernetes

go 1.24.0

require (
	k8s.io/api v0.0.0
	k8s.io/apimachinery v0.0.0
)

replace (
	k8s.io/client-go => ./staging/src/k8s.io/client-go
	k8s.io/api => ./staging/src/k8s.io/api // a comment
	github.com/foo/bar => github.com/fork/bar v1.2.3
	k8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
)
`,
			want: []string{"k8s.io/api", "k8s.io/apimachinery", "k8s.io/client-go"},
		},
		{
			name: "single-line form, with a version on the old side",
			goMod: `module example.com/m
replace k8s.io/api v0.0.0 => ./staging/src/k8s.io/api
replace k8s.io/kms => ../elsewhere/kms
// replace k8s.io/commented => ./staging/src/k8s.io/commented
`,
			want: []string{"k8s.io/api"},
		},
		{
			name:    "no staging replaces means the format changed",
			goMod:   "module example.com/m\n\nrequire k8s.io/api v0.33.13\n",
			wantErr: "no replace directives pointing at ./staging found",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := stagingReplaces([]byte(tt.goMod))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestBuildGoMod(t *testing.T) {
	t.Parallel()
	k8s := component{module: "fedctl.local/testbin", require: "k8s.io/kubernetes", version: "v1.33.13", staging: true}
	assert.Equal(t, `module fedctl.local/testbin

go 1.24

require k8s.io/kubernetes v1.33.13

replace (
	k8s.io/api => k8s.io/api v0.33.13
	k8s.io/client-go => k8s.io/client-go v0.33.13
)
`, buildGoMod(k8s, []string{"k8s.io/api", "k8s.io/client-go"}))

	etcd := component{module: "fedctl.local/etcd", require: "go.etcd.io/etcd/server/v3", version: "v3.5.21"}
	assert.Equal(t, "module fedctl.local/etcd\n\ngo 1.24\n\nrequire go.etcd.io/etcd/server/v3 v3.5.21\n", buildGoMod(etcd, nil))
}

func TestStagingVersion(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "v0.33.13", stagingVersion("v1.33.13"))
	assert.Equal(t, "v0.36.3", stagingVersion("v1.36.3"))
}

func TestVersionLDFlags(t *testing.T) {
	t.Parallel()
	flags := versionLDFlags("v1.33.13")
	for _, pkg := range []string{"k8s.io/component-base/version", "k8s.io/client-go/pkg/version"} {
		assert.Contains(t, flags, "-X "+pkg+".gitVersion=v1.33.13")
		assert.Contains(t, flags, "-X "+pkg+".gitMajor=1 ")
		assert.Contains(t, flags, "-X "+pkg+".gitMinor=33 ")
	}
}

func TestCacheDir(t *testing.T) {
	// No t.Parallel: t.Setenv and t.Chdir.
	t.Run("the environment variable wins", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv(TestbinDirEnv, dir)
		got, err := cacheDir()
		require.NoError(t, err)
		assert.Equal(t, dir, got)
	})
	t.Run("else .cache/testbin in the fedctl repository, past nested modules", func(t *testing.T) {
		t.Setenv(TestbinDirEnv, "")
		root := t.TempDir()
		nested := filepath.Join(root, "tools", "sub")
		require.NoError(t, os.MkdirAll(nested, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/fedctl/fedctl // the repo\n\ngo 1.26.0\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(root, "tools", "go.mod"), []byte("module example.com/tools\n"), 0o644))
		t.Chdir(nested)
		got, err := cacheDir()
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, ".cache", "testbin"), got)
	})
}

func TestMissing(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	all := func(component) bool { return true }
	required := func(c component) bool { return !c.onDemand }
	assert.Len(t, missing(cache, all), len(components), "an empty cache misses everything")
	onDemand := missing(cache, func(c component) bool { return c.onDemand })
	require.Len(t, onDemand, 1)
	assert.Equal(t, "kubectl", onDemand[0].name, "kubectl is built only when asked for")
	assert.Len(t, missing(cache, required), len(components)-1)

	for _, c := range components {
		path := binaryPath(cache, c)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755))
	}
	assert.Empty(t, missing(cache, all), "executable files are reused")

	bins := binariesIn(cache)
	require.NoError(t, os.Chmod(bins.Kwok, 0o644))
	got := missing(cache, required)
	require.Len(t, got, 1, "a file that is not executable is rebuilt")
	assert.Equal(t, "kwok", got[0].name)
	assert.Equal(t, filepath.Join(cache, "kwok-"+KwokVersion, "kwok"), bins.Kwok)
	assert.Equal(t, filepath.Join(cache, "k8s-"+KubernetesVersion, "kube-apiserver"), bins.KubeAPIServer)
	assert.Equal(t, filepath.Join(cache, "etcd-"+EtcdVersion, "etcd"), bins.Etcd)
}

func TestLockFileWaitsForTheHolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), ".lock")
	unlock, err := lockFile(t.Context(), path, io.Discard)
	require.NoError(t, err)

	// flock locks belong to the open file, so a second open in the same
	// process contends like another process would.
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(t.Context(), 600*time.Millisecond)
	defer cancel()
	_, err = lockFile(ctx, path, &log)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Contains(t, log.String(), "waiting for another process building test binaries")

	unlock()
	unlock2, err := lockFile(t.Context(), path, &log)
	require.NoError(t, err, "the lock is free once released")
	unlock2()
}

func TestLastLines(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "c\nd", lastLines([]byte("a\nb\nc\nd\n"), 2))
	assert.Equal(t, "a", lastLines([]byte("a\n"), 5))
}
